# The two commands: `make demo` and `make test`. Both create .venv on first use.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip -q --disable-pip-version-check
SHARED ?= $(abspath ../shared)

.PHONY: demo test test-js test-python test-cpus test-browser test-notebooks bench clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install --upgrade pip

# core install: what `make demo` needs (no TensorFlow)
$(VENV)/.core: pyproject.toml | $(PY)
	$(PIP) install -e .
	touch $@

# everything, test tools included
$(VENV)/.all: pyproject.toml $(VENV)/.core
	$(PIP) install -e ".[tf,test]"
	touch $@

demo: $(VENV)/.core
	$(VENV)/bin/fairnb demo

test: $(VENV)/.all test-js test-python test-browser test-notebooks

# the widgets' front ends (js/ -> fairnb/static); `pip install` builds them too
JS_SRC := $(wildcard js/src/*) js/build.mjs
js/node_modules/.installed: js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund
	touch $@

fairnb/static/.built: js/node_modules/.installed $(JS_SRC)
	cd js && npm run build
	touch $@

test-js: js/node_modules/.installed
	cd js && npm test

# real-browser widget tests: JupyterLab + Debian chromium (they fail when chromium is missing)
test-browser: $(VENV)/.all fairnb/static/.built
	$(PY) -m pytest -p no:cacheprovider -m browser --timeout 300 -q tests/browser

test-python: $(VENV)/.all fairnb/static/.built
	FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -n 2 --timeout 900 -q -m "not browser"

# the Python suite again under two OpenBLAS kernels (float rounding differs between CPUs: no test may
# depend on it); .ci/run calls this after `make test`
test-cpus: $(VENV)/.all fairnb/static/.built
	for core in Haswell Prescott; do \
	  echo "== OPENBLAS_CORETYPE=$$core"; \
	  OPENBLAS_CORETYPE=$$core FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	    $(PY) -m pytest -p no:cacheprovider -n 2 --timeout 900 -q -m "not browser" || exit 1; \
	done

test-notebooks: $(VENV)/.all fairnb/static/.built
	FAIRNB_SMOKE=1 FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -p no:cacheprovider --nbmake --nbmake-timeout=300 -q notebooks/

clean:
	rm -rf $(VENV) fairnb-report js/node_modules fairnb/static

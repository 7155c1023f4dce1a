# The two commands: `make demo` and `make test`. Both create .venv on first use.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip -q --disable-pip-version-check
SHARED ?= $(abspath ../shared)

.PHONY: demo test test-python test-notebooks bench clean

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

test: $(VENV)/.all test-python test-notebooks

test-python: $(VENV)/.all
	FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -n 2 --timeout 900 -q

test-notebooks: $(VENV)/.all
	FAIRNB_SMOKE=1 FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -p no:cacheprovider --nbmake --nbmake-timeout=300 -q notebooks/

clean:
	rm -rf $(VENV) fairnb-report js/node_modules fairnb/static

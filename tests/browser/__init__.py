"""Real-browser tests of the widgets (JupyterLab + chromium); see conftest.py."""

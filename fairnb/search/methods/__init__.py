"""The search methods, one module each (a few share one: the text searches, the image searches), each registered
by name in ``fairnb.search.registry``. A method is composed from the engine (``fairnb.search.engine``) and parts
(``fairnb.search.parts``); ``two_phase`` is the skeleton of the gradient-guided ones.
"""

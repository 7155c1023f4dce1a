"""Let a trained Keras model's traced graphs go with it: TensorFlow's gradient registry keeps them otherwise.

Keras's train step reduces its values through ``tf.distribute``'s ``all_reduce``, which wraps the reduction in
``tf.custom_gradient``. Inside a traced function that registers a gradient function under a fresh name
(``CustomGradient-<n>``) in TensorFlow's process-wide gradient registry, and nothing ever removes it. The
gradient function refers to the traced graph, so every training kept its graphs (74 for tutorial 04's
three-layer LSTM, with the constants they captured) after its model was freed: about 35 MB a training, which
a notebook that trains four models per Run All cannot afford on Binder (issue #22).

:func:`training_graphs_released` removes the registrations made inside its block when the block ends. They are
read only while a function that holds the reduction is differentiated as it is traced (the train step builds its
gradient then); running the traced step, or tracing it again, does not need them.

>>> with training_graphs_released():            # doctest: +SKIP
...     model.fit(X, y, epochs=5)
"""
from __future__ import annotations

from contextlib import contextmanager

_PREFIX = "CustomGradient-"


def _registry() -> dict | None:
    """TensorFlow's gradient registry (name -> entry), or None where this TensorFlow keeps it elsewhere."""
    from tensorflow.python.framework import ops

    registry = getattr(getattr(ops, "_gradient_registry", None), "_registry", None)
    return registry if isinstance(registry, dict) else None


@contextmanager
def training_graphs_released():
    """Remove the custom gradients registered inside the block once it ends (module docstring)."""
    registry = _registry()
    before = set(registry) if registry is not None else set()
    try:
        yield
    finally:
        if registry is not None:
            for name in [n for n in registry if n.startswith(_PREFIX) and n not in before]:
                registry.pop(name, None)

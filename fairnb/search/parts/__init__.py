"""The parts search methods are composed of (TextAttack's composition): transformations (what one step is),
gradient sources and direction rules, acceptance (which local steps a walker keeps), and the science a method builds on (finite differences, LIME
attributions, biased and causal neurons, DICE's severity, a latent generator, SG's symbolic parts).

A part knows nothing of the methods that use it (``tests/test_layering.py``).
"""

"""The search methods, one record each, resolved lazily so that importing fairnb stays light.

A ``MethodRecord`` says all that other parts of fairnb need to know about a method without importing it
(in the spirit of scikit-learn's estimator tags): where its class is, what it needs from the model and
which inputs it searches, which of its count budgets the shards of a sharded run divide
(``fairnb.distributed.plan``), whether it starts from ``seeds=`` (one that does not refuses them), its
own summary keys (labelled in ``fairnb.summaries`` and ``docs/glossary.md``), and the small parameters
the test suites run it with. The test suites (conformance, faults and Ctrl-C, shards, docs) iterate the
registry, so a method registered here, by fairnb or by a user, is held to all of them.

Example
-------
>>> get_method("random").__name__
'RandomSearch'
>>> method_record("themis").divided
('n_samples',)
>>> record = register(MethodRecord("mine", "mypackage.search:MySearch", divided=("n_samples",),
...                                takes_seeds=False, fast={"n_samples": 3000}))
>>> METHODS["mine"]
'mypackage.search:MySearch'
>>> unregister("mine") is record
True
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType

INPUTS = ("tabular", "text", "image")
NEEDS = ("gradients", "activations")


@dataclass(frozen=True)
class MethodRecord:
    """One search method.

    ``name``: what ``get_method`` and the command line take; ``target``: its class as ``"module:Class"``
    (imported on first use); ``inputs``: what it searches (``"tabular"``, ``"text"``, ``"image"``);
    ``needs``: what it asks of the model besides its outputs (``"gradients"``, ``"activations"``);
    ``divided``: its count parameters that size what it draws or generates itself, divided among the
    shards of a sharded run (``max_tried`` always is); ``takes_seeds``: whether it starts from or learns
    from ``seeds=`` (a search that does not refuses them); ``summary_keys``: the keys of its own in
    ``Result.summary()``, each with a label and a glossary entry (``fairnb.summaries``); ``fast``: small
    parameters with which one run takes well under a second (the test suites' configuration).
    """

    name: str
    target: str
    inputs: str = "tabular"
    needs: tuple = ()
    divided: tuple = ()
    takes_seeds: bool = True
    summary_keys: tuple = ()
    fast: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name or self.name != self.name.lower():
            raise ValueError(f"MethodRecord: name must be a lower-case string, got {self.name!r}")
        if not isinstance(self.target, str) or self.target.count(":") != 1:
            raise ValueError(f"MethodRecord {self.name!r}: target must be 'module:Class', got {self.target!r}")
        if self.inputs not in INPUTS:
            raise ValueError(f"MethodRecord {self.name!r}: inputs must be one of {INPUTS}, got {self.inputs!r}")
        if not set(self.needs) <= set(NEEDS):
            raise ValueError(f"MethodRecord {self.name!r}: needs must be among {NEEDS}, got {self.needs!r}")
        for name in ("needs", "divided", "summary_keys"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "fast", MappingProxyType(dict(self.fast)))

    def load(self):
        """The method's class (imports its module)."""
        module, cls = self.target.split(":")
        return getattr(importlib.import_module(module), cls)


_TWO_PHASE = {"n_seeds": 30, "n_local": 20, "seed_selection": "as_given"}
_AEQUITAS = {"n_seeds": 300, "n_local": 30}
_TEXT = {"n_seeds": 60, "n_local": 10}
_NETWORK = ("layer_auc", "biased_layer", "biased_threshold", "biased_neurons")

RECORDS: dict[str, MethodRecord] = {}
ALIASES = {"themis": "random", "aequitas-fully": "aequitas"}
METHODS: dict[str, str] = {}      # every registered name and alias -> "module:Class"


def register(record: MethodRecord) -> MethodRecord:
    """Add ``record`` to the registry (its name must be new); returns it."""
    if not isinstance(record, MethodRecord):
        raise TypeError(f"register takes a MethodRecord, got {type(record).__name__}")
    if record.name in METHODS:
        raise ValueError(f"a method named {record.name!r} is already registered; unregister it first")
    same = [r.name for r in RECORDS.values() if r.target == record.target]
    if same:
        raise ValueError(f"{record.target} is already registered as {same[0]!r}: one record per class")
    RECORDS[record.name] = record
    METHODS[record.name] = record.target
    return record


def unregister(name: str) -> MethodRecord:
    """Remove the method registered as ``name`` (and its aliases); returns its record."""
    record = RECORDS.pop(name)
    for alias in [a for a, target in ALIASES.items() if target == name]:
        del ALIASES[alias], METHODS[alias]
    del METHODS[name]
    return record


def method_record(method) -> MethodRecord:
    """The record of ``method``: a registered name or alias, or a search (object or class: the record of
    its class, else of its nearest registered base class, matched by ``target`` without importing)."""
    if isinstance(method, str):
        key = ALIASES.get(method.lower(), method.lower())
        if key in RECORDS:
            return RECORDS[key]
        raise ValueError(f"unknown method {method!r}; available: {sorted(METHODS)}")
    by_target = {record.target: record for record in RECORDS.values()}
    for cls in getattr(method, "__mro__", type(method).__mro__):
        record = by_target.get(f"{cls.__module__}:{cls.__qualname__}")
        if record is not None:
            return record
    raise ValueError(f"{method!r} is not a registered search method, nor a subclass of one; "
                     "register it: fairnb.search.registry.register(MethodRecord(...))")


def get_method(name: str):
    """The Search class registered under ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"method must be the name of a search method, one of {sorted(METHODS)}; got {name!r}")
    return method_record(name).load()


def refuse_seeds(search, seeds) -> None:
    """Raise ValueError when ``seeds`` are given to a search whose record says it takes none."""
    try:
        takes = seeds is None or method_record(search).takes_seeds
    except ValueError:          # not registered: nothing says it ignores them
        return
    if not takes:
        raise ValueError(f"{search.name} draws its own inputs and does not use seeds; leave seeds out "
                         "(seeds=None), or choose a method that starts from them, e.g. 'aequitas' or 'eidig'")


def seeds_for(search, seeds):
    """``seeds`` if ``search`` (a search, its class or a name) takes them, else None: for code that runs any
    method on the same data.

    >>> seeds_for("eidig", [[0, 1]]), seeds_for("aft", [[0, 1]])
    ([[0, 1]], None)
    """
    try:
        return seeds if method_record(search).takes_seeds else None
    except ValueError:          # not registered: it is given them, as any search is
        return seeds


for _record in (
    MethodRecord("random", "fairnb.search.methods.random:RandomSearch", divided=("n_samples",), takes_seeds=False,
                 fast={"n_samples": 3000, "batch_size": 500}),
    MethodRecord("adf", "fairnb.search.methods.adf:ADF", needs=("gradients",), divided=("n_seeds",), fast=_TWO_PHASE),
    MethodRecord("eidig", "fairnb.search.methods.eidig:EIDIG", needs=("gradients",), divided=("n_seeds",), fast=_TWO_PHASE),
    MethodRecord("neuronfair", "fairnb.search.methods.neuronfair:NeuronFair", needs=("activations",), divided=("n_seeds",),
                 summary_keys=_NETWORK, fast={**_TWO_PHASE, "interpret_rows": 500}),
    MethodRecord("maft", "fairnb.search.methods.maft:MAFT", divided=("n_seeds",), fast=_TWO_PHASE),
    MethodRecord("aequitas", "fairnb.search.methods.aequitas:Aequitas", divided=("n_seeds",), fast=_AEQUITAS),
    MethodRecord("aequitas-semi", "fairnb.search.methods.aequitas:AequitasSemiDirected", divided=("n_seeds",), fast=_AEQUITAS),
    MethodRecord("aequitas-random", "fairnb.search.methods.aequitas:AequitasRandom", divided=("n_seeds",), fast=_AEQUITAS),
    # n_local counts the expansions of all walks together
    MethodRecord("kosei", "fairnb.search.methods.kosei:Kosei", divided=("n_seeds", "n_local"),
                 fast={"n_seeds": 300, "n_local": 300, "batch_size": 200}),
    MethodRecord("expga", "fairnb.search.methods.expga:ExpGA", divided=("n_seeds",),   # the population kept, not the candidates
                 summary_keys=("explained",),
                 fast={"n_candidates": 300, "n_seeds": 50, "n_local": 30, "lime_samples": 300}),
    MethodRecord("expga_text", "fairnb.search.methods.expga_text:ExpGAText", inputs="text", divided=("n_seeds",),
                 summary_keys=("explained", "seeds_explained"),
                 fast={"n_candidates": 60, "n_local": 5, "lime_samples": 200}),
    MethodRecord("grft", "fairnb.search.methods.grft:GRFT", divided=("n_seeds",), fast=_TWO_PHASE),
    MethodRecord("aft", "fairnb.search.methods.aft:AFT", divided=("n_loops",), takes_seeds=False,
                 summary_keys=("loops", "fresh_starts", "path_pairs"),
                 fast={"n_loops": 3, "n_train": 1000, "max_pairs": 30, "max_samples": 20}),
    MethodRecord("dice", "fairnb.search.methods.dice:DICE", needs=("gradients",), divided=("n_seeds",),
                 summary_keys=("severity_bits_mean", "severity_bits_max", "causal_layer", "causal_neurons"),
                 fast={**_TWO_PHASE, "debug_rows": 500}),
    MethodRecord("limi", "fairnb.search.methods.limi:LIMI", divided=("n_latent",),
                 fast={"n_latent": 500, "n_boundary": 3000, "batch_size": 250}),
    MethodRecord("vbtx", "fairnb.search.methods.vbtx:VBTX", divided=("n_loops",), takes_seeds=False,
                 summary_keys=("loops", "fresh_starts"), fast={"n_loops": 6, "n_train": 1000, "max_solutions": 20}),
    MethodRecord("sg", "fairnb.search.methods.sg:SymbolicGeneration", divided=("limit", "n_seeds"),
                 summary_keys=("test_cases_generated",), fast={"limit": 60, "n_samples": 400, "batch_size": 8}),
    MethodRecord("adf_asc", "fairnb.search.methods.adf_text:ADFTextASC", inputs="text", needs=("gradients",), fast=_TEXT),
    MethodRecord("adf_hf", "fairnb.search.methods.adf_text:ADFTextHotFlip", inputs="text", needs=("gradients",), fast=_TEXT),
    MethodRecord("asc", "fairnb.search.methods.adf_text:TextASC", inputs="text", needs=("gradients",), fast=_TEXT),
    MethodRecord("hf", "fairnb.search.methods.adf_text:TextHotFlip", inputs="text", needs=("gradients",), fast=_TEXT),
    MethodRecord("rp", "fairnb.search.methods.adf_text:TextRandom", inputs="text", fast=_TEXT),
    MethodRecord("neuronfair_image", "fairnb.search.methods.image_flip:NeuronFairImage", inputs="image", divided=("n_seeds",),
                 needs=("activations",), summary_keys=("flip_success_rate", *_NETWORK), fast={"n_seeds": 60}),
    MethodRecord("adf_image", "fairnb.search.methods.image_flip:ADFImage", inputs="image", divided=("n_seeds",), needs=("gradients",),
                 summary_keys=("flip_success_rate",), fast={"n_seeds": 60}),
    MethodRecord("eidig_image", "fairnb.search.methods.image_flip:EIDIGImage", inputs="image", divided=("n_seeds",), needs=("gradients",),
                 summary_keys=("flip_success_rate",), fast={"n_seeds": 60}),
    MethodRecord("zero_order_image", "fairnb.search.methods.zero_order_image:ZeroOrderImage", inputs="image",
                 divided=("n_seeds",), summary_keys=("flip_success_rate",), fast={"n_seeds": 60}),
):
    register(_record)
METHODS.update({alias: RECORDS[name].target for alias, name in ALIASES.items()})

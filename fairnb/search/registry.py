"""Names of the search methods, resolved lazily so that importing fairnb stays light.

Example
-------
>>> get_method("random").__name__
'RandomSearch'
"""
from __future__ import annotations

import importlib

METHODS = {
    "random": "fairnb.search.random:RandomSearch",
    "themis": "fairnb.search.random:RandomSearch",
    "adf": "fairnb.search.adf:ADF",
    "eidig": "fairnb.search.eidig:EIDIG",
    "neuronfair": "fairnb.search.neuronfair:NeuronFair",
    "maft": "fairnb.search.maft:MAFT",
    "aequitas": "fairnb.search.aequitas:Aequitas",
    "aequitas-fully": "fairnb.search.aequitas:Aequitas",
    "aequitas-semi": "fairnb.search.aequitas:AequitasSemiDirected",
    "aequitas-random": "fairnb.search.aequitas:AequitasRandom",
    "kosei": "fairnb.search.kosei:Kosei",
    "expga": "fairnb.search.expga:ExpGA",
    "expga_text": "fairnb.search.expga_text:ExpGAText",
    "grft": "fairnb.search.grft:GRFT",
    "aft": "fairnb.search.aft:AFT",
    "dice": "fairnb.search.dice:DICE",
    "limi": "fairnb.search.limi:LIMI",
    "vbtx": "fairnb.search.vbtx:VBTX",
    "sg": "fairnb.search.sg:SymbolicGeneration",
    "adf_asc": "fairnb.search.text:ADFTextASC",
    "adf_hf": "fairnb.search.text:ADFTextHotFlip",
    "asc": "fairnb.search.text:TextASC",
    "hf": "fairnb.search.text:TextHotFlip",
    "rp": "fairnb.search.text:TextRandom",
    "neuronfair_image": "fairnb.search.image_flip:NeuronFairImage",
    "adf_image": "fairnb.search.image_flip:ADFImage",
    "eidig_image": "fairnb.search.image_flip:EIDIGImage",
    "zero_order_image": "fairnb.search.zero_order_image:ZeroOrderImage",
}


def get_method(name: str):
    """The Search class registered under ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"method must be the name of a search method, one of {sorted(METHODS)}; got {name!r}")
    try:
        target = METHODS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; available: {sorted(METHODS)}") from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)

"""The tutorials' last cell: how long the run took and the kernel's peak memory (issue 37, a teacher's needs)."""
from __future__ import annotations

import re
import time

import numpy as np

from fairnb.footprint import footprint, peak_memory_mib


def test_footprint_says_the_seconds_since_the_start_and_a_peak_that_grows_with_what_was_held():
    before = peak_memory_mib()
    held = np.ones(64 * 2**20 // 8)                      # 64 MiB, touched
    after = peak_memory_mib()
    assert before is not None and after >= before and after >= 64
    text = footprint(time.monotonic() - 3.4)
    assert re.fullmatch(r"this run: 3 s; the kernel's peak memory so far: [\d,]+ MiB", text), text
    del held

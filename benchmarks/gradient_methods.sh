#!/usr/bin/env bash
# The gradient-guided generators (ADF, EIDIG, MAFT, NeuronFair) on the EIDIG/MAFT benchmarks with the
# published models. Each command takes well under two minutes on a busy 2-core machine.
# Needs the benchmark data and models: FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models.
# Results: benchmarks/results/bench_<benchmark>_<seeds>x<local>.{csv,md}
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export FAIRNB_DATA=${FAIRNB_DATA:-../shared/data} FAIRNB_MODELS=${FAIRNB_MODELS:-../shared/models}
OUT=benchmarks/results

# the issue's configuration (C-g, 100 seeds x 100 local steps), 10 rounds of seeds, with the named options
$PY -m fairnb.cli bench --benchmark C-g --seeds 100 --local 100 --rounds 10 --out $OUT \
  --methods "adf,adf[acceptance=metropolis],adf[acceptance=reset],eidig,eidig[update_interval=inf],maft,neuronfair[local=paper],neuronfair[local=reference],neuronfair[layer=1;local=reference]"

# the papers' full configuration (1,000 seeds x 1,000 local steps), one round per benchmark; the
# eidig[decay=1.0] and maft[decay=1.0;h=0.0001] rows are the settings MAFT's artifact run actually had
for b in C-a C-r C-g G-g G-a B-a; do
  $PY -m fairnb.cli bench --benchmark $b --seeds 1000 --local 1000 --out $OUT \
    --methods "adf,adf[acceptance=reset],eidig,maft,eidig[decay=1.0],maft[decay=1.0;h=0.0001],neuronfair[local=paper],neuronfair[local=reference]"
done

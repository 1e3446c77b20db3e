#!/usr/bin/env bash
# The speed page's thread table and AEC table, measured on two cores of an otherwise idle machine, in one go
# (under 4 minutes, the first use's compiling included). Run from the repository root:
#
#     bash benchmarks/device_speed.sh
#
# Needs python3 with numpy, numba and torch; gymnasium, pettingzoo, stable-baselines3, rlcard and pygame come
# from there too, or from ./.whl_site (plain packages unpacked there) if that folder exists. PYTHON=... picks
# another interpreter.
set -euo pipefail
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
if [ -d "$PWD/.whl_site" ]; then
    export PYTHONPATH="$PWD/.whl_site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
unset OMP_WAIT_POLICY GOMP_SPINCOUNT NUMBA_THREADING_LAYER NUMBA_NUM_THREADS
PIN="taskset -c 0,1"

echo "== $(nproc) cores, benchmarks pinned to cores 0,1; $($PY -c 'import sys, numpy, numba; print("Python", sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__)')"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
SECONDS=0
echo "== compiling what the benchmarks run (numba's disk cache; seconds once cached)"
$PIN $PY -c "
import numba, quando_env
from quando_env.registry import game_class, game_module
for name in ('quando', 'cabo', 'help'):
    for threads in (1, 2):
        numba.set_num_threads(threads)
        g = game_class(name)(4096, seed=0)
        g.step(g.sample_actions())
    e = game_module(name).raw_env(); e.reset(seed=0); e.last()
v = quando_env.make_vec_env(256, num_players=4); v.reset(); v.step(v.action_masks().argmax(1))
"
echo "   compiled in ${SECONDS} s"
echo
echo "== threads and the SB3 VecEnv: benchmarks/bench_threads.py --seconds 2"
$PIN $PY benchmarks/bench_threads.py --seconds 2
echo
echo "== raw AEC env against PettingZoo's leduc: benchmarks/bench_engine.py --only aec --seconds 0.5 --repeats 3"
$PIN $PY benchmarks/bench_engine.py --only aec --seconds 0.5 --repeats 3
echo "== done in ${SECONDS} s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

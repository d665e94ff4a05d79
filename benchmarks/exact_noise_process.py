"""One process releasing ``--releases`` vectors of ``--entries`` zeros with GaussianMechanism.

For whole-process paired timing of the exact path against the float path (run the two
alternately under an outside timer, e.g. ``/usr/bin/time -v`` or any A/B harness, and take the
ratio pair by pair; a run with ``--releases 0`` measures the start-up to subtract):

    python benchmarks/exact_noise_process.py --numerics exact --releases 20
    python benchmarks/exact_noise_process.py --numerics float --releases 20

epsilon=1, delta=1e-5, L2 sensitivity 1, secure default generator; the exact mechanism's table
set-up (once per sigma) happens in a first, untimed-by-design release that both variants make.
"""

from __future__ import annotations

import argparse

import numpy as np

import matrixdp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numerics", choices=("float", "exact"), required=True)
    parser.add_argument("--releases", type=int, default=20)
    parser.add_argument("--entries", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics=args.numerics)
    x = np.zeros(args.entries)
    mech.release(x[:100])            # set-up (exact: the sampler's table for a 100-entry sigma)
    if args.releases:
        mech.release(x)              # set-up for this size
    for _ in range(max(0, args.releases - 1)):
        mech.release(x)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

cd experiments && PYTHONPATH=../src python heldout_synth_atoms.py --seeds 10

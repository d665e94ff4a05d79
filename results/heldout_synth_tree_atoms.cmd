cd experiments && PYTHONPATH=../src python heldout_synth_tree_atoms.py --seeds 10

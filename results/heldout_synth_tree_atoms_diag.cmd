cd experiments && PYTHONPATH=../src python heldout_synth_tree_atoms_diag.py

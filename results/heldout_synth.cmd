cd experiments && PYTHONPATH=../src python heldout_synth.py --seeds 10 --audit-runs 50

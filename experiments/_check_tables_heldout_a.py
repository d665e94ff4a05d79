"""Public specs of held-out tables 1-6 (``_check_tables_heldout.MEASUREMENT``); filled by task HR."""

SPECS_A: dict = {}

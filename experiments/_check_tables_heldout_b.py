"""Public specs of held-out tables 7-12 (``_check_tables_heldout.MEASUREMENT``); filled by task HC."""

SPECS_B: dict = {}

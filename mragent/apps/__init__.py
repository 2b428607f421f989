"""Applications on the memory: evaluation, bench, explain and its views, transfer, migrations."""

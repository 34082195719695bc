"""The benchmark: the harness (a grid of runs in fresh processes), its worker, and the side-by-side
comparison in one process. Kept empty so a worker process imports only what it runs."""

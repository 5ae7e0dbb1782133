"""The low-level layer every package uses: the cache store, declared parameters, numeric helpers, processes,
logging and progress. It imports nothing from the rest of gsr but gsr.errors."""

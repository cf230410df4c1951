"""Read models and the game service: everything between the domain and the edges (API, workers)."""

"""Server-rendered pages for players and GMs: sign-in links, boards, planning, resistance, GM console."""

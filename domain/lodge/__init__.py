"""Mages in a Lodge: the effect engine with cards as data (ANALYSIS Part L)."""

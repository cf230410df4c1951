"""The Powers ruleset (rules/powers.txt; ids from rules/ANALYSIS.md Part P)."""

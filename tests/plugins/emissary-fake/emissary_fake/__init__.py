"""The table, a fake ruleset on the platform alone (``ruleset``), and how the contract suite plays it
(``contract``); README "Adding a ruleset"."""

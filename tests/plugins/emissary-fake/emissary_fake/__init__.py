"""The table, a fake ruleset on the platform alone (``ruleset``), and how the contract suite plays it
(``contract``); README "Adding a ruleset". Seats join, post and throw dice (``throws``: two installed versions of
the throw's rule, issue 29); each join begins a phase; once three sit, rounds run on the platform's flow
(``ruleset.ROUND``). It imports no ``domain.powers``."""

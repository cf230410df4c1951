"""The Lodge's events keep the topics and shapes a game has always recorded them under (issue 26): a game stored
before its aggregate's split still loads, and one played now records only those topics.

``STORED`` holds each topic a Lodge game recorded at commit cba6659, with its fields, computed from that code: the
event classes named on ``LodgeGame`` (it has no ``@event`` methods)."""

from __future__ import annotations

import domain.lodge.ruleset  # noqa: F401  (the ruleset's modules, as a game loads them)
from tests.domain.event_topics import changed_shapes, decorated_topics, played_topics

STORED = {
    "domain.lodge.game:LodgeGame.BlackRoseActed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.CellOfferClosed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.CellOfferMade": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.Change": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ChoiceAnswered": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ChoiceDefaulted": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ChoiceLapsed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ChoiceOffered": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.CleanupBegan": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ContactSet": ["actor", "audience", "email", "mode", "power_id"],
    "domain.lodge.game:LodgeGame.CredentialIssued": ["actor", "audience", "principal", "token_hash"],
    "domain.lodge.game:LodgeGame.CredentialsRevoked": ["actor", "audience", "principal"],
    "domain.lodge.game:LodgeGame.DeadlineSet": ["actor", "audience", "closes_at", "window_id"],
    "domain.lodge.game:LodgeGame.DeckShuffled": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.EffectResolved": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.EvocationCommanded": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.EvocationsRotated": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.ExtensionGranted": [
        "actor",
        "audience",
        "hours",
        "power_id",
        "request_id",
        "until",
        "window_id",
    ],
    "domain.lodge.game:LodgeGame.ExtensionRefused": [
        "actor",
        "audience",
        "power_id",
        "reason",
        "request_id",
        "window_id",
    ],
    "domain.lodge.game:LodgeGame.ExtensionRequested": [
        "actor",
        "audience",
        "hours",
        "power_id",
        "reason",
        "request_id",
        "window_id",
    ],
    "domain.lodge.game:LodgeGame.GameBlocked": [
        "actor",
        "at",
        "audience",
        "kind",
        "reason",
        "rule",
        "seats",
        "tell",
        "window_id",
    ],
    "domain.lodge.game:LodgeGame.GameEnded": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.GameForked": ["actor", "audience", "name", "reason", "source_game", "source_version"],
    "domain.lodge.game:LodgeGame.GameRolledBack": ["actor", "audience", "from_version", "reason", "to_version"],
    "domain.lodge.game:LodgeGame.LodgeCreated": [
        "actor",
        "audience",
        "catalogue",
        "catalogue_pin",
        "name",
        "options",
        "originator_topic",
        "package",
        "rules_version",
        "ruleset",
        "timezone",
    ],
    "domain.lodge.game:LodgeGame.MageAdded": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.MailTurnRecorded": ["actor", "audience", "message_id", "principal", "reply"],
    "domain.lodge.game:LodgeGame.Passed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PersistentEnded": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PersistentPlaced": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PersistentSkipped": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PersistentTokensReturned": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PhaseBegan": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PhraseResolved": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PhysicalActionTokensFlipped": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PhysicalActionUsed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.PostEdited": ["actor", "audience", "post_id", "text", "thread_id"],
    "domain.lodge.game:LodgeGame.PostHidden": ["actor", "audience", "post_id", "reason", "thread_id"],
    "domain.lodge.game:LodgeGame.Previewed": ["actor", "at", "audience", "step", "window_id"],
    "domain.lodge.game:LodgeGame.RulesAdopted": [
        "actor",
        "amended",
        "audience",
        "from_phase",
        "from_version",
        "previous_version",
        "rules_version",
    ],
    "domain.lodge.game:LodgeGame.RulesChangeTold": [
        "actor",
        "audience",
        "changes",
        "from_phase",
        "previous_version",
        "rules_version",
    ],
    "domain.lodge.game:LodgeGame.SeatClosed": ["actor", "audience", "seat"],
    "domain.lodge.game:LodgeGame.SeatOpened": ["actor", "audience", "language", "listed", "note", "pace", "seat"],
    "domain.lodge.game:LodgeGame.SeatTaken": ["actor", "audience", "seat"],
    "domain.lodge.game:LodgeGame.InvitationSent": ["actor", "audience", "email", "invitation", "language", "seat"],
    "domain.lodge.game:LodgeGame.InvitationAccepted": ["actor", "audience", "invitation", "seat"],
    "domain.lodge.game:LodgeGame.InvitationWithdrawn": ["actor", "audience", "invitation"],
    "domain.lodge.game:LodgeGame.NotificationsSet": [
        "actor",
        "audience",
        "mail",
        "push",
        "quiet_from",
        "quiet_until",
        "seat",
    ],  # issue 31: a seat's notifications
    "domain.lodge.game:LodgeGame.PostMade": ["actor", "audience", "post_id", "rolls", "text", "thread_id", "tied_to"],
    "domain.lodge.game:LodgeGame.ReadyDeclared": ["actor", "audience", "power_id"],
    "domain.lodge.game:LodgeGame.RemindersQueued": [
        "actor",
        "audience",
        "closes_at",
        "covers",
        "offset_hours",
        "recipients",
        "window_id",
    ],
    "domain.lodge.game:LodgeGame.RoomFlipped": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.RoomScored": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.RoomsToRebuild": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.SeedCleared": ["actor", "audience"],
    "domain.lodge.game:LodgeGame.SeedCommitted": [
        "actor",
        "audience",
        "commitment",
        "first_roll",
        "month",
        "rolls",
        "root",
        "season",
    ],
    "domain.lodge.game:LodgeGame.SeedRevealed": ["actor", "audience", "commitment", "month", "season", "seed"],
    "domain.lodge.game:LodgeGame.SeedSealed": ["actor", "audience", "seed"],
    "domain.lodge.game:LodgeGame.SpellRevealed": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.SpellsPrepared": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.StateRestored": ["actor", "audience", "carried", "to_version"],
    "domain.lodge.game:LodgeGame.ThreadOpened": ["actor", "audience", "members", "thread_id", "title"],
    "domain.lodge.game:LodgeGame.TimezoneSet": ["actor", "audience", "power_id", "timezone"],
    "domain.lodge.game:LodgeGame.TurnBegan": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.VisibilityGranted": [
        "about",
        "action_id",
        "actor",
        "audience",
        "source",
        "text",
        "to",
    ],
    "domain.lodge.game:LodgeGame.WindowClosed": ["actor", "audience", "closed_at", "reason", "window_id"],
    "domain.lodge.game:LodgeGame.WindowOpened": ["actor", "audience", "closes_at", "kind", "opened_at", "window_id"],
}


# Topics added since cba6659, each with its fields: an older release cannot read a game that recorded one, which is
# why each is listed here on purpose.
ADDED = {
    # the Evocation deck's seed committed before its draws and revealed at the game's end (L.4)
    "domain.lodge.game:LodgeGame.DeckCommitted": ["actor", "audience", "changes", "data"],
    "domain.lodge.game:LodgeGame.DeckRevealed": ["actor", "audience", "changes", "data"],
}

PINNED_AT = {"LodgeCreated": 2}  # each shape's class_version at cba6659 (else 1)


def test_every_stored_topic_resolves_to_an_event_that_folds_with_the_same_shape():
    """Each stored shape loads: as it is, or through the upcasters of a shape changed since (the platform's events
    name a seat ``seat`` and a seed's phase by its label since issue 26)."""
    assert changed_shapes(STORED, PINNED_AT) == [
        "ContactSet",
        "ExtensionGranted",
        "ExtensionRefused",
        "ExtensionRequested",
        "PostMade",  # 2: reply_to, the post it answers; 3: mentions, the seats it names (issue 28)
        "ReadyDeclared",
        "RulesChangeTold",  # 2: amended, the results re-decided; public, the observers' line (issue 29)
        "SeedCommitted",
        "SeedRevealed",
        "TimezoneSet",
    ]


def test_a_lodge_game_played_at_random_records_only_stored_topics():
    """Seeded random legal play (tests/contract/test_liveness.py) records nothing an older release could not read;
    nor does any ``@event`` method of the package (it has none today)."""
    assert sorted(decorated_topics("domain.lodge") - set(STORED) - set(ADDED)) == []
    topics = played_topics("lodge")
    assert len(topics) > 10 and sorted(topics - set(STORED) - set(ADDED)) == []

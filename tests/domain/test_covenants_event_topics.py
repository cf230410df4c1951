"""The covenant game's events keep their stored topics and shapes now that each is declared in its sub-domain's
module (issue 26): ``CovenantGame`` names every one, so the library redefines it as ``CovenantGame.<Name>`` and a
game stored before the split still loads, and one stored now records the topics it always had."""

from __future__ import annotations

import dataclasses

from eventsourcing.utils import get_topic, resolve_topic

from domain.covenants.base import CovenantEvent
from domain.covenants.game import CovenantGame

ENVELOPE = {"originator_id", "originator_version", "timestamp"}

# Each event the covenant game recorded before its rules left the aggregate, with its fields (its payload's shape).
STORED = {
    "ActionRuled": ["actor", "approved", "audience", "index", "note"],
    "ActionTaken": ["action", "actor", "audience", "needs_ruling", "seat", "text"],
    "BanditsFaced": ["actor", "audience", "dealt", "fought", "seat"],
    "BanditsLooted": ["actor", "audience", "gold", "seat"],
    "BanditsSeasonEnded": ["actor", "audience", "discarded"],
    "BattleBegan": ["a", "actor", "allocating", "audience", "b", "battle_id", "cause", "dealt"],
    "BattleDeferred": ["actor", "audience", "awaiting", "battle_id", "spells"],
    "BattleReopened": ["actor", "audience", "battle"],
    "BattleResolved": ["actor", "audience", "battle_id", "defeated", "event_damage", "marked", "retreated", "riot"],
    "BattleSkipped": ["actor", "audience", "battle_id"],
    "BattlesQueued": ["actor", "audience", "battles"],
    "BeingHealed": ["active", "actor", "audience", "card_id", "damage", "healer"],
    "CardCreated": ["actor", "arts", "audience", "card_id", "name", "owner", "pending", "source"],
    "CardDamaged": ["active", "actor", "audience", "card_id", "damage"],
    "CardDiscarded": ["actor", "audience", "card_id", "reason"],
    "CardGenerated": ["actor", "audience", "card", "kind", "mouse_card", "seat", "value"],
    "CardHealed": ["actor", "audience", "card_id", "damage"],
    "CardKept": ["actor", "art", "attach_to", "audience", "card_id", "gold", "inactive_until", "seat", "spell", "vis"],
    "CardTurned": ["active", "actor", "audience", "card_id", "reason"],
    "CertamenArtChosen": ["actor", "art", "audience", "challenge_id", "which"],
    "CertamenBidCommitted": ["actor", "audience", "challenge_id", "commitment", "seat"],
    "CertamenBidSealed": ["actor", "audience", "challenge_id", "nonce", "seat", "vis"],
    "CertamenForfeited": ["actor", "audience", "challenge_id", "gold", "seat", "vis"],
    "CertamenResolved": ["actor", "audience", "bids", "challenge_id", "result"],
    "ChallengeIssued": [
        "actor",
        "audience",
        "challenge_id",
        "challenger",
        "cycle",
        "mage",
        "season",
        "target",
        "target_mage",
    ],
    "ChaosAnswered": ["actor", "audience", "battle_id", "chooser", "paid", "rival"],
    "ChaosRolled": ["actor", "audience", "even", "face", "seat"],
    "Converted": ["actor", "amount", "artisan", "audience", "get", "give", "got", "seat"],
    "CounterWaived": ["actor", "audience", "seat", "silent"],
    "CovenantAdded": ["actor", "arts", "audience", "covenant", "name", "roles", "score", "seat_id"],
    "DamageAllocated": ["actor", "allocation", "audience", "battle_id", "seat"],
    "DamageReversed": ["active", "actor", "audience", "card_id", "damage"],
    "DieRolled": ["actor", "audience", "commitment", "faces", "key", "path", "purpose", "roll_no", "seat", "sides"],
    "EventDrawn": ["actor", "audience", "event_name", "kind", "mouse_card", "seat"],
    "EventHeld": ["actor", "audience", "event_name", "season", "seat"],
    "EventPlayed": ["actor", "audience", "event_name", "seat", "target"],
    "EventTookEffect": ["actor", "audience", "event_name", "inactive", "resources"],
    "GameBegun": ["actor", "audience", "starting"],
    "HedgeMageFaced": ["actor", "audience", "curse", "seat"],
    "HeldEventsReleased": ["actor", "audience", "events"],
    "InvestigationApplied": ["actor", "audience", "seat", "target"],
    "InvestigationEnded": ["actor", "audience", "outcome"],
    "InvestigationRolled": ["actor", "audience", "cleared", "rolls", "seat"],
    "MainRoundBegan": ["actor", "audience", "extra", "turn"],
    "NoRivalFound": ["actor", "audience", "seat"],
    "PermanentTributeImposed": ["actor", "audience", "points", "reason", "seat"],
    "PhaseBegan": ["actor", "audience", "cycle", "phase", "season", "turn", "year"],
    "PlagueCounterAdded": ["actor", "audience", "counters"],
    "PlagueStruck": ["actor", "audience", "cards", "seat"],
    "QuaesitorInvestigationCreated": ["actor", "audience", "seat"],
    "ReleasedEventDecided": ["actor", "audience"],
    "RivalChosen": ["actor", "audience", "rival", "seat"],
    "RollChangedByMouse": ["actor", "audience", "card", "mouse_card", "seat", "value"],
    "SeasonBegan": ["actor", "audience", "season", "year"],
    "SeasonEnded": ["actor", "audience"],
    "ServiceAnswered": ["actor", "audience", "card", "outcome", "seat"],
    "SpellAssigned": ["actor", "audience", "card_id", "spell"],
    "SpellCast": [
        "actor",
        "audience",
        "certamen",
        "damage",
        "mage_id",
        "magnitude",
        "marked",
        "phase",
        "reached",
        "ritual",
        "seat",
        "spell",
        "spell_id",
        "strength",
        "target",
        "until",
        "vis",
    ],
    "SpellCountered": ["actor", "audience", "mage_id", "seat", "spell", "success", "target", "vis"],
    "StudyCounterRemoved": ["actor", "audience", "card_id"],
    "SupportAllocated": ["actor", "after", "audience", "keep", "made", "paid", "seat", "starved"],
    "TaxAssessed": ["actor", "audience", "taxes"],
    "TaxPaid": ["actor", "audience", "gold", "seat"],
    "TokenMoved": ["actor", "audience", "seat", "square"],
    "TollPaid": ["actor", "amount", "audience", "battle_id", "seat", "what"],
    "TradeClosed": ["accepted", "actor", "audience", "trade_id"],
    "TradeOffered": ["actor", "audience", "get", "give", "seat", "to", "trade_id"],
    "TribunalAttended": ["actor", "audience", "seat"],
    "TurnPassed": ["acted", "actor", "audience", "phase", "seat"],
    "YearReckoned": ["actor", "audience", "points", "scores", "spent", "starting", "winners"],
}


def test_every_stored_event_resolves_by_its_old_topic_to_an_event_of_the_same_shape():
    for name, fields in STORED.items():
        topic = f"domain.covenants.game:CovenantGame.{name}"
        cls = resolve_topic(topic)
        assert cls is getattr(CovenantGame, name) and get_topic(cls) == topic, name
        assert sorted(f.name for f in dataclasses.fields(cls) if f.name not in ENVELOPE) == sorted(fields), name


def test_every_event_a_sub_domain_declares_is_recorded_under_the_aggregate_topic():
    declared, pending = [], list(CovenantEvent.__subclasses__())
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        if cls.__module__ != "domain.covenants.game":
            declared.append(cls)
    assert declared and sorted(c.__name__ for c in declared) == sorted(STORED)
    for cls in declared:
        named = getattr(CovenantGame, cls.__name__)
        assert issubclass(named, cls) and issubclass(named, CovenantGame.Event), cls.__name__
        assert get_topic(named) == f"domain.covenants.game:CovenantGame.{cls.__name__}"

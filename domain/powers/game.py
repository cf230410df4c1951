"""The Powers game aggregate: a thin composition of sub-domain mixins on one typed state.

Every event carries its ``actor`` (``gm``, ``system`` or a power id) and its ``audience``
(domain.visibility). Events only fold state: checks, dice, entropy and the clock happen in the
commands, and their results go into the events.

The month's sub-domains (``domain.powers.base`` lists them) each decide and declare their events; the library
redefines each event on ``Game``, so it is recorded under the topic it always had
(``domain.powers.game:Game.<Name>``). This class keeps the game's creation and what a rollback carries over.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.dice import commitment
from domain.ids import GM, SYSTEM
from domain.platform.game import PlatformGame, _at, _iso, check_timezone, mark_recount, seating_into_state
from domain.platform.game import digest as digest
from domain.platform.game import fold as platform_fold
from domain.powers import rules
from domain.powers.actions import Actions
from domain.powers.actions import submission_digest as submission_digest
from domain.powers.armies import Armies
from domain.powers.base import PowersEvent
from domain.powers.battle import BATTLE_EVENT_VERSIONS, Battles
from domain.powers.calendar import Calendar, check_months
from domain.powers.catalogue import Catalogue
from domain.powers.development import Development
from domain.powers.magic import Magic
from domain.powers.options import DEFAULT_OPTIONS, validate_game_options
from domain.powers.resistance import Resistance
from domain.powers.resolution import Resolution
from domain.powers.rulings import Rulings
from domain.powers.setup import Setup
from domain.powers.state import GameState
from domain.powers.world import World, keep_known_features

__all__ = ["EVENT_VERSIONS", "Game", "digest", "event_types", "fold", "submission_digest"]


class Game(
    Calendar,
    Setup,
    Actions,
    Rulings,
    Resolution,
    Resistance,
    Armies,
    Battles,
    Catalogue,
    Magic,
    World,
    Development,
    PlatformGame,
):
    """One game of Powers: its calendar, powers, assets, the month's actions, reactions and windows."""

    class Event(PlatformGame.Event):
        """Base of Powers' own events (the platform's are ``PlatformGame.Event``s)."""

    # Version 2: GameCreated is counted once in the viewers' sequences (version 1 counted it twice). Version 3: the
    # platform's mixin events are counted once too (``PlatformGame.class_version``): recounted from the events.
    # Version 4: the open seats and invitations are in the state (``PlatformGame.upcast_v2_v3``).
    class_version = 4

    @staticmethod
    def upcast_v1_v2(aggregate_state: dict[str, Any]) -> None:
        """A snapshot taken when GameCreated was counted twice: count it once, as replaying the events does."""
        state = aggregate_state["state"]
        seen = dict(state.seen)
        for viewer in ("gm", "public"):
            if seen.get(viewer, 0) > 0:
                seen[viewer] -= 1
        aggregate_state["state"] = replace(state, seen=seen)

    @staticmethod
    def upcast_v2_v3(aggregate_state: dict[str, Any]) -> None:
        """A snapshot from before the platform's events counted once: its sequences are counted again when loaded."""
        mark_recount(aggregate_state)

    upcast_v3_v4 = staticmethod(seating_into_state)  # one of version 3 kept the open seats beside the state

    @event("GameCreated")
    def __init__(
        self,
        name: str,
        gm_name: str,
        timezone: str,
        ruleset: str,
        rules_version: str,
        options: dict[str, Any],
        months_per_season: int,
        actor: str,
        audience: list[str],
    ) -> None:
        self.state = GameState(
            name=name,
            gm_name=gm_name,
            timezone=timezone,
            ruleset=ruleset,
            rules_version=rules_version,
            options={**DEFAULT_OPTIONS, **deepcopy(options)},
            months_per_season=months_per_season,
        )

    @classmethod
    def start(
        cls,
        name: str,
        gm_name: str,
        timezone: str = "UTC",
        options: dict[str, Any] | None = None,
    ) -> Game:
        """Create a game of Powers; its options say how many months a season lasts (GM-28: 2 or 3, default 2),
        which the game keeps as its calendar (``GameCreated.months_per_season``), not among its options."""
        limits.check_text(name, "name", limits.GAME_NAME, required=True, what="a game's name")
        limits.check_text(gm_name, "gm_name", limits.GM_NAME, what="the GM's name")
        check_timezone(timezone)
        options = validate_game_options(options)
        months_per_season = int(options.pop("months_per_season", 2))
        check_months(months_per_season)
        return cls(
            name=name.strip(),
            gm_name=gm_name,
            timezone=timezone,
            ruleset="powers",
            rules_version=rules.RULES_VERSION,
            options=options,
            months_per_season=months_per_season,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    # ------------------------------------------------------------------ rewind

    # Powers' StateRestored (version 2) has always kept the seats under "powers".
    CARRIED_SEATS = "powers"

    def rollback(self, to_version: int, restored: GameState, *, reason: str, now: datetime, seed: str) -> None:
        """The platform's rollback (``carried_over`` says what survives), then a fresh seed governs the
        dice from here; a superseded seed goes to the GM only, for the audit (P.4)."""
        superseded = self.state.seed
        super().rollback(to_version, restored, reason=reason, now=now, seed=seed)
        self._fresh_seed(seed, s_old_seed=superseded if superseded != self.state.seed else None)

    def carried_over(self, restored: GameState, now: datetime) -> dict[str, Any]:
        """What nobody can unsee survives a rollback (the platform's: every viewer's sequence, credentials,
        each power's grants and time zone), and Powers': roll numbers never repeat, the rollback count,
        the holders of shared Secrets; the open windows at the target get a full window from ``now``.

        The rolls made under the superseded seed stay verifiable by their viewers from their keys and
        paths (``rollback`` draws a fresh seed).
        """
        s = self.state
        platform = super().carried_over(restored, now)
        secret_holders = {}
        for asset_id, asset in s.assets.items():
            if asset.cls == "secret" and asset_id in restored.assets:
                kept = list(restored.assets[asset_id].holders)
                for h in asset.holders:
                    if h not in kept and h in restored.powers:
                        kept.append(h)
                secret_holders[asset_id] = kept
        closes_at = {}
        for w in restored.windows.values():
            if not w.closed:
                hours = s.options["planning_hours"] if w.kind == "planning" else s.options["resistance_hours"]
                closes_at[w.id] = max(w.closes_at, _iso(now + timedelta(hours=float(hours))), key=_at)
        return {  # in the order version 2 has always stored
            "seen": platform["seen"],
            "next_roll": s.next_roll,
            "credentials": platform["credentials"],
            "rollbacks": s.rollbacks + 1,
            "powers": platform["powers"],
            "secret_holders": secret_holders,
            "closes_at": closes_at,
            "known_features": self.known_features(),  # added with the map; older rollbacks carry none
        }

    def _merge_carried(self, merged: GameState, carried: dict[str, Any]) -> GameState:
        merged = super()._merge_carried(merged, carried)
        merged.next_roll = carried["next_roll"]
        merged.rollbacks = carried["rollbacks"]
        for asset_id, holders in carried["secret_holders"].items():
            merged.assets[asset_id].holders = list(holders)
        for window_id, closes_at in carried["closes_at"].items():
            merged.windows[window_id].closes_at = closes_at
        keep_known_features(merged, carried.get("known_features", {}))
        return merged

    def _fresh_seed(self, seed: str, s_old_seed: str | None = None, reveal: bool = True) -> None:
        """Commit a fresh seed; superseded seeds go to the GM only, for the audit (P.4)."""
        s = self.state
        for old in sorted({x for x in (s_old_seed, s.seed) if x is not None}) if reveal else []:
            self._seed_revealed(
                seed=old,
                commitment=commitment(old),
                phase=f"s{s.season}m{s.month}",
                actor=SYSTEM,
                audience=[vis.GM_ONLY],
            )
        if s.step in ("planning", "resolution", "resistance", "battle"):
            self._commit_seed(seed, f"s{s.season}m{s.month}")
        else:
            self._seed_cleared(actor=SYSTEM, audience=[vis.SEALED])

    class StateRestored(PlatformGame.StateRestored, Event):
        """A rollback's new state: the game as it stood at ``to_version``, with what carries over.

        Version 2 records the target version and ``carried`` (``carried_over``); folding it needs the
        state at ``to_version`` (``fold`` re-folds it). Version 1 embedded the whole state: it is upcast
        to ``to_version`` None and that state in ``carried["state"]``, which the fold takes as it is.
        """

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["to_version"] = None
            state["carried"] = {"state": state.pop("state")}


# Every event type's shape has a version (DESIGN "Event evolution"). A stored event keeps the version
# it was written with; changing a shape bumps its version here and adds ``upcast_vN_vN+1`` (a static
# method turning the stored dict of version N into version N+1) on an explicitly declared event class,
# as ``Game.StateRestored`` does. tests/domain/test_event_versions.py compares these shapes with the
# committed manifest, tests/fixtures/event_manifest.json.
EVENT_VERSIONS: dict[str, int] = {
    "GameCreated": 1,
    "CredentialIssued": 1,
    "CredentialsRevoked": 1,
    "PowerAdded": 1,
    "AssetGranted": 1,
    "SeasonLengthSet": 1,
    "StepBegan": 1,
    "SeedSealed": 1,
    "SeedCommitted": 2,  # 2: the platform speaks seats (issue 26)
    "SeedRevealed": 2,  # 2: the platform speaks seats (issue 26)
    "CleanupApplied": 1,
    "WindowOpened": 1,
    "WindowClosed": 1,
    "ActionSubmitted": 1,
    "DiceRolled": 1,
    "ConversionsLocked": 1,
    "ActionDiscarded": 1,
    "DifficultyDeclared": 1,
    "DifficultyRecorded": 1,
    "DifficultyCommitted": 1,
    "RulingIssued": 1,
    "ConsequenceProposed": 1,
    "ConsequenceAccepted": 1,
    "VisibilityGranted": 1,
    "ManaGranted": 1,
    "SecretShared": 1,
    "InfluenceSet": 1,
    "InfluenceDisclosed": 1,
    "TimezoneSet": 2,  # 2: the platform speaks seats (issue 26)
    "DeadlineSet": 1,
    "ExtensionRequested": 2,  # 2: the platform speaks seats (issue 26)
    "ExtensionGranted": 2,  # 2: the platform speaks seats (issue 26)
    "ExtensionRefused": 2,  # 2: the platform speaks seats (issue 26)
    "ReadyDeclared": 2,  # 2: the platform speaks seats (issue 26)
    "RemindersQueued": 1,
    "GameBlocked": 1,  # domain.platform.game (issue 24)
    "MailTurnRecorded": 1,
    "ContactSet": 2,  # 2: the platform speaks seats (issue 26)
    "LanguageSet": 1,  # issue 28: the language of a seat's mail
    "GameRolledBack": 1,
    "StateRestored": 2,  # 2: the target version and what carries over, no longer the whole state
    "SeedCleared": 1,
    "GameForked": 1,
    "SchemesGranted": 1,
    "TiesBroken": 1,
    "ResolutionQueueBuilt": 1,
    "AssetUndercut": 1,
    "DifficultyRevealed": 1,
    "ActionProvisional": 1,
    "ResistanceOffered": 1,
    "ActionResolved": 1,
    "ResolutionPublished": 1,
    "ReactionDeclared": 1,
    "ReactionConversionsLocked": 1,
    "ReactionsWaived": 1,
    "ResistanceForewarned": 1,  # P-AMB-4
    "ResistanceAnnounced": 1,  # P-AMB-45
    "PoolAssetsShown": 1,  # P-AMB-3
    "AssetsHiddenFromResisters": 1,  # GM-19
    "ReactionConsequenceProposed": 1,  # P-AMB-6
    "ReactionConsequenceAccepted": 1,
    # domain.powers.catalogue
    "ExtraDiceRolled": 1,
    "FreeActionTaken": 1,
    "QuotaChanged": 1,
    "AssetTermsSet": 1,
    "ItemWielded": 1,  # P-ASSET-8
    "ImmunitySet": 1,  # P-AMB-10
    "FeesDue": 1,
    "ExtraReactionGained": 1,
    "ReactionUsed": 1,
    "ClassActionDeclared": 1,
    "ActionLost": 1,
    "ClassActionOutcome": 1,
    "RunePlaced": 1,
    "TargetResult": 1,
    "ShareRolled": 1,
    "ShareUndercut": 1,
    "TrueLocationRecorded": 1,
    "DreadGrown": 1,
    "ShareConsequenceProposed": 1,
    "ShareConsequenceAccepted": 1,
    "SpellDefined": 1,
    "SpellLearned": 1,
    "MagicPerkGranted": 1,
    "SpellsPerfected": 1,
    "ConduitSet": 1,
    "ConduitRemoved": 1,
    "SpellCast": 1,
    "RitualWarded": 1,
    "RitualConcluded": 1,
    "ManaChannelled": 1,
    "ManaContributed": 1,
    "ManaSpent": 1,
    "MapDeclared": 1,
    "MapAmended": 1,
    "MapPublished": 1,
    "FeaturesShown": 1,
    "FeatureLearned": 1,
    "ClaimSet": 1,
    "ClaimLost": 1,
    "InfluenceSpent": 1,
    "InfluenceShifted": 1,
    "MechanismsSet": 1,
    "InfluenceGenerated": 1,
    "ActionAimed": 1,
    "InfiltrationAnnounced": 1,
    "TaxesCollected": 1,
    "FeatureOwned": 1,
    "FloorCleared": 1,
    "ThreatReduced": 1,
    "RuinCleared": 1,
    "FeatureRebuilt": 1,
    "ModuleBuilt": 1,
    "TownChanged": 1,
    "TownHarmed": 1,
    "BlightedTownChosen": 1,
    "WorldSeasonBegan": 1,
    "OutpostsReset": 1,
    "MercurialSwapped": 1,
    "SubtleRuled": 1,
    "ManaGardensUsed": 1,
    "MaintenanceDue": 1,
    "MaintenancePaid": 1,
    "StrongholdInoperable": 1,
    "TownsCleanedUp": 1,
    "IndustriesChanged": 1,
    "DurableHeld": 1,
    "AimsClosed": 1,
    "ControlChosen": 1,
    "WalletChanged": 1,
    "FavorSpent": 1,
    "InsightSpent": 1,
    "QuestionAnswered": 1,
    "TradeProposed": 1,
    "TradeAccepted": 1,
    "TradeClosed": 1,
    "DevelopmentBought": 1,
    "PerkGained": 1,
    "PerkNerfed": 1,
    "NerfSettled": 1,
    "PerkLost": 1,
    "AmbitionOffered": 1,
    "AmbitionMysteriesRecorded": 1,
    "AmbitionTaken": 1,
    "AmbitionDeclined": 1,
    "AmbitionTaskChanged": 1,
    "AmbitionTaskRevealed": 1,
    "AmbitionEnded": 1,
    "AmbitionClosed": 1,
    "PerkDefined": 1,
    "ArmyTypeDefined": 1,
    "ArmyPlaced": 1,
    "SupportBonusSet": 1,
    "ExperienceGained": 1,
    "ArmyDispersed": 1,
    "ArmyActionAimed": 1,
    "ArmyRestored": 1,
    "ArmyMoved": 1,
    "ArmyFeeDue": 1,
    "ArmyFeePaid": 1,
    "ArmyDeserted": 1,
    "TrainSucceeded": 1,
    "LevelUpRolled": 1,
    "ArmyLeveledUp": 1,
    "TrainDiscarded": 1,
    "ArmyArmed": 1,
    "ArmyDisbanded": 1,
    "SupportSettled": 1,
    "SupportUnpaid": 1,
    "ArmyRecovered": 1,
    "ArmySighted": 1,
    "ArmyDetected": 1,
    "ScarsKept": 1,
    # domain.platform.posts
    "ThreadOpened": 1,
    "PostMade": 3,  # 2: reply_to, the post it answers; 3: mentions, the seats it names (issue 28)
    "PostEdited": 1,
    "PostHidden": 1,
    # domain.platform.preview
    "Previewed": 1,
    # domain.platform.disputes
    "DisputeRaised": 1,
    "DisputeAnswered": 1,
    "DisputeSettled": 1,
    # domain.platform.replay
    "RulesAdopted": 1,
    "RulesChangeTold": 2,  # 2: amended, the results re-decided, by the viewer's numbers; public, the observers'
    # domain.platform.seating
    "SeatOpened": 2,  # 2: listed, whether the lobby lists the seat (issue 28)
    "SeatClosed": 1,
    "SeatTaken": 1,
    "InvitationSent": 1,
    "InvitationAccepted": 1,
    "InvitationWithdrawn": 1,
    # domain.platform.notifications
    "NotificationsSet": 2,  # 2: mention, a kind of news (issue 28)
    **BATTLE_EVENT_VERSIONS,  # domain.powers.battle
}


def event_types() -> dict[str, type[Game.Event]]:
    """Every event type a Powers game records, by name: the class each is stored under.

    The library redefines every event class a subclass inherits on that subclass. The platform's events
    (explicit classes triggered through ``self.<Name>``) are recorded as the redefined
    ``domain.powers.game:Game.<Name>``, the topics they had before the platform existed. An ``@event``
    method records the class of the class that defines it, so the events of a feature mixin
    (``class Magic(PlatformGame)`` in ``domain/powers/magic.py``, a base of ``Game``) are stored as
    ``domain.powers.magic:Magic.<Name>``, and that class is the one that gets its version. The month's events
    (``PowersEvent``s, which their sub-domain's mixin names and records through ``self.<Name>``) are recorded as
    the redefined ``Game.<Name>``, as the platform's are. The world's events (explicit classes its sub-domain modules
    declare and ``World`` names) are recorded as ``domain.powers.world:World.<Name>``, the topics they always had.
    ``tests/domain/test_powers_event_topics.py`` pins every recorded topic.
    """
    found: dict[str, type[Game.Event]] = {}
    for name, cls in vars(Game).items():
        if not (isinstance(cls, type) and issubclass(cls, Game.Event)) or name in ("Event", "Created"):
            continue
        owners = [k for k in Game.__mro__ if isinstance(vars(k).get(name), type)]
        origin = owners[-1]
        found[name] = cls if issubclass(PlatformGame, origin) or issubclass(cls, PowersEvent) else vars(origin)[name]
    return found


def _version_events() -> None:
    """Give each event class its version (an event missing here fails tests/domain/test_event_versions.py)."""
    for name, cls in event_types().items():
        if name not in EVENT_VERSIONS:
            continue
        declared = cls.__dict__.get("class_version")
        if declared is not None and declared != EVENT_VERSIONS[name]:
            raise TypeError(f"event {name} declares version {declared}, EVENT_VERSIONS says {EVENT_VERSIONS[name]}")
        cls.class_version = EVENT_VERSIONS[name]


_version_events()


fold = platform_fold  # a StateRestored (version 2) re-folds the game to its target version first

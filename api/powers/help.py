"""Powers' help (issue 28, ``api.help``): every line of its mail grammar (domain/powers/mail.py) with an example
and what it does; the help page shows each with the grammar's own usage (``USAGE``). The tests read every example with
the grammar and check that every verb it takes has one here."""

from __future__ import annotations

from api.help.mail import MailLine
from domain.powers.mail import GM_ONLY, USAGE, VERBS

__all__ = ["GM_ONLY", "MAIL", "USAGE", "VERBS"]

MAIL = (
    MailLine(
        (
            "action: Duel the Balrog\n"
            "  slot: private\n"
            "  skill: might\n"
            "  targets: Balrog\n"
            "  resistible: yes\n"
            "  difficulty: 1\n"
            "  assets: might, blade assured\n"
            "  extra action: yes\n"
            "  convert: 2\n"
            "  collaborators: Rangers\n"
            "  description: At the bridge of Khazad-dum."
        ),
        (
            "an action: one key a line below it (slot, skill, targets, resistible, difficulty, assets, extra "
            "action, convert, collaborators, description, location); the dice are rolled on receipt "
            "(P-ACT-1, P-DICE-1..5)"
        ),
        sends=("SubmitAction",),
    ),
    MailLine(
        "action: Win Elrond over\n  propose: yes",
        "propose an action: the GM sets its difficulty first, then you roll it (GM-2)",
        sends=("SubmitAction",),
    ),
    MailLine(
        "roll #2 with negotiation convert 1",
        "roll a proposed action once the GM has set its difficulty",
        sends=("RollAction",),
    ),
    MailLine(
        "convert #1 1",
        "fix the conversions of my 1st action this month (or use its id)",
        sends=("LockConversions",),
    ),
    MailLine(
        "discard #1",
        "discard an action after its roll; it stays spent (P-DICE-10)",
        sends=("DiscardAction",),
    ),
    MailLine(
        "accept #1 csq-1a2b3c4d",
        "accept the GM's consequence offer",
        sends=("AcceptConsequence",),
    ),
    MailLine(
        "resist act-3f2e1d0c9b with might convert 1",
        "resist a provisional action alone, with your assets (P-RES-1..4)",
        sends=("DeclareReaction",),
    ),
    MailLine(
        "waive",
        "resist nothing this month (P-RES-1)",
        sends=("WaiveReactions",),
    ),
    MailLine(
        "extension 12 travelling",
        "ask for 12 more hours",
        sends=("RequestExtension",),
    ),
    MailLine(
        "ready",
        "I am done for this month",
        sends=("DeclareReady",),
    ),
    MailLine(
        "timezone Europe/Paris",
        "the zone your deadlines are written in",
        sends=("SetTimezone",),
    ),
    MailLine(
        "control respect",
        "or fear; chosen once (P-ASSET-10)",
        sends=("ChooseControl",),
    ),
    MailLine(
        "spend 2 coin, 1 fear for a bribe at the gate",
        "coin, respect, fear (P-ASSET-10)",
        sends=("SpendResources",),
    ),
    MailLine(
        "trade offer Rangers give 2 coin for 1 favor note for the map",
        '"give" or "for" may be left out',
        sends=("ProposeTrade",),
    ),
    MailLine(
        "trade accept trade-1a2b3c4d",
        "or decline (the power offered it), withdraw (the offerer)",
        sends=("AcceptTrade", "DeclineTrade", "WithdrawTrade"),
    ),
    MailLine(
        "favor mana Light",
        "or Dark: 3 mana (P-ASSET-11), if they fit the store; else held by one action, spent in it (P-AMB-37)",
        sends=("SpendFavor",),
    ),
    MailLine(
        "favor mana Dark in #1",
        "",
        sends=("SpendFavor",),
    ),
    MailLine(
        "wield Ring of Fire by Spymaster in #1",
        "an item's wielder, changed in an action (P-ASSET-8)",
        sends=("WieldItem",),
    ),
    MailLine(
        "accept react-1a2b3c4d csq-1a2b3c4d",
        "a consequence of my own resistance (P-AMB-6)",
        sends=("AcceptReactionConsequence",),
    ),
    MailLine(
        "favor miracle Rain on the burning fields",
        "or keyword <request>; the GM answers",
        sends=("SpendFavor",),
    ),
    MailLine(
        "insight Who holds the ring?",
        "a question to the GM (P-ASSET-11)",
        sends=("SpendInsight",),
    ),
    MailLine(
        "buy skill lore",
        "during Tidings: skill, rank <skill>, perk <perk>[: <choice>], upgrade <perk>[: <choice>] (P-DEV-1..5)",
        sends=("BuyDevelopment",),
    ),
    MailLine(
        "buy perk Sworn Enemy: Mordor",
        "",
        sends=("BuyDevelopment",),
    ),
    MailLine(
        "nerf refund Savior",
        "a perk the GM nerfed: keep, refund, or swap <perk>[: <choice>] for <perk>[: <choice>] (P-DEV-6)",
        sends=("SettleNerf",),
    ),
    MailLine(
        "nerf swap Sworn Enemy: Mordor for Savior",
        "",
        sends=("SettleNerf",),
    ),
    MailLine(
        "ambition accept amb-1a2b3c4d",
        "or decline, abandon (P-AMBI-1)",
        sends=("AcceptAmbition", "DeclineAmbition", "AbandonAmbition"),
    ),
    MailLine(
        "cast fireball through the wizard at 1,-1 in #1 pay FFFW",
        "all but the spell optional: its only conduit, the conduit's hex, outside an action, paid in kind",
        sends=("CastSpell",),
    ),
    MailLine(
        "contribute F, F to act-3f2e1d0c9b",
        "a collaborator's mana for the action's ritual (P-MAG-3)",
        sends=("ContributeMana",),
    ),
    MailLine(
        "pay FW for #1 with FW",
        "an action's own mana cost (P-MAG-2)",
        sends=("PayMana",),
    ),
    MailLine(
        "aim #1 infiltrate at Bree",
        "delve, clear, town, infiltrate, module, workers_unite, channel (P-ACT-4, P-FEAT-2..4, P-INFL-6);",
        sends=("AimAction",),
    ),
    MailLine(
        "aim #2 delve at Barrow-downs floor 1",
        'a town action: "as <kind>" (P-TOWN-2)',
        sends=("AimAction",),
    ),
    MailLine(
        "aim #3 town at Bree as trade with Tharbad",
        "",
        sends=("AimAction",),
    ),
    MailLine(
        "influence spend 2 at 0,0, 1 at 1,0 on #1",
        "any from the action's hex, 1 from a neighbour (P-INFL-2)",
        sends=("SpendInfluence",),
    ),
    MailLine(
        "influence shift 0,0 to 1,0, 0,0 to -1,0",
        "during Tidings, down a gradient of two (P-INFL-3)",
        sends=("ShiftInfluence",),
    ),
    MailLine(
        "maintain Orthanc",
        "a stronghold's maintenance this Tidings (P-FEAT-3)",
        sends=("PayMaintenance",),
    ),
    MailLine(
        "swap 0,0 with 1,1",
        "Mercurial, in Tidings, before the outpost reset (P-INFL-4)",
        sends=("MercurialSwap",),
    ),
    MailLine(
        "blight Bree",
        "Blighted Neighborhood's claimed town (P.2.12)",
        sends=("ChooseBlightedTown",),
    ),
    MailLine(
        "class: annex\n  slot: public\n  location: 2,0\n  with: towns_claimed 1, town tharbad\n  targets: Rangers",
        (
            "a class action (P.2.12), a block as an action is: slot, location, targets, assets, convert, "
            'collaborators, description, title, and its inputs (whole numbers as numbers) on "with:"'
        ),
        sends=("SubmitClassAction",),
    ),
    MailLine(
        "duel Rangers at 0,0 skill might with blade convert 1 public",
        "the target and where it is (P-ACT-6); a character that is no power",
        sends=("SubmitDuel",),
    ),
    MailLine(
        "duel character Witch-king at 1,0",
        "",
        sends=("SubmitDuel",),
    ),
    MailLine(
        "seek 1,0 named influence",
        'Targeted Seeking, or "seek 1,0 broad" (P-ACT-7)',
        sends=("SubmitSeeking",),
    ),
    MailLine(
        "join act-3f2e1d0c9b with might convert 1",
        "a declared collaborator rolls its own pool (P-DICE-11)",
        sends=("JoinAction",),
    ),
    MailLine(
        "share accept act-3f2e1d0c9b csq-1a2b3c4d",
        "the consequence of one's own share (P-DICE-11)",
        sends=("AcceptShareConsequence",),
    ),
    MailLine(
        "free execute_agent Spymaster note caught lying",
        'or "free disband_levy <levy>" (P-ACT-5)',
        sends=("TakeFreeAction",),
    ),
    MailLine(
        "reaction extra Vigilant",
        "pay a perk's price for one more reaction (P-RES-1)",
        sends=("GainExtraReaction",),
    ),
    MailLine(
        "reaction gate_guardians on act-3f2e1d0c9b fee 1",
        "a reaction that is not a resistance (P-RES-7)",
        sends=("UseReaction",),
    ),
    MailLine(
        "army train #1 with army_id Guard",
        'aim an action at armies: muster, train, forge, levy, gather; its inputs on "with" (P-ARMY-1..7)',
        sends=("AimArmyAction",),
    ),
    MailLine(
        "army forge #2 with army_id Guard, tier 1",
        "",
        sends=("AimArmyAction",),
    ),
    MailLine(
        "army levelup Guard",
        "roll a trained army's level-up (P-ARMY-3), then choose its bonuses [class <class>] (P-ARMY-4),",
        sends=("RollLevelUp",),
    ),
    MailLine(
        "army choose Guard attack, keyword valiant",
        "or discard it, refunding the Experience",
        sends=("ChooseLevelUp",),
    ),
    MailLine(
        "army discard Guard",
        "",
        sends=("DiscardTrain",),
    ),
    MailLine(
        "army scars keep Guard",
        'or "heal": an orc army\'s wounds (P-ARMY-9)',
        sends=("KeepScars",),
    ),
    MailLine(
        "army fee Guard coin",
        "pay an army's fee (P-SUP-3)",
        sends=("PayArmyFee",),
    ),
    MailLine(
        "army disband Guard",
        "a loyal army in Tidings, a levy in its town (P-SUP-1, P-ARMY-5)",
        sends=("DisbandArmy",),
    ),
    MailLine(
        "support 2 coin, 1 fear",
        "in Tidings, the units beyond the support limit (P-SUP-1)",
        sends=("PaySupport",),
    ),
    MailLine(
        "declare battle at 2,0 against South with East",
        "in the month's Battle step (P-AMB-1: option battle_declared_by)",
        sends=("DeclareBattle",),
    ),
    MailLine(
        "setup Guard, Host goals Hold the ford reinforcements Riders reveal Spy champion",
        (
            "ordered armies [goals, at most two a side] [reinforcements: Delayed X = distance, P-BAT-14] "
            "[assets to the GM only] [champion]"
        ),
        sends=("SubmitBattleSetup",),
    ),
    MailLine(
        "setup Guard goals Kill the Count; attacker 4; defender 2; defender reward remove next round",
        (
            "a goal's thresholds and rewards a side (P-BAT-8, P-EX-12): threshold N, attacker N, defender N; "
            "reward remove|remove next round|<text>"
        ),
        sends=("SubmitBattleSetup",),
    ),
    MailLine(
        "deploy Militia",
        'Deployment: armies in the hex join ("deploy none" passes)',
        sends=("DeployArmies",),
    ),
    MailLine(
        "spell fireball on Orcs pay F, F, A, E",
        (
            'Spellcasting: one fast spell, its mana paid (P-MAG-2; without "pay": in kind, the rest from the '
            "most plentiful)"
        ),
        sends=("CastBattleSpell",),
    ),
    MailLine(
        "command Guard slay Orcs",
        (
            "Commands, on your turn: slay|hold|charge|rest [target] [goal] (hold: a goal; charge: target "
            "then goal) (P-BAT-2, P-BAT-3)"
        ),
        sends=("GiveCommand",),
    ),
    MailLine(
        "command Host hold advance",
        "",
        sends=("GiveCommand",),
    ),
    MailLine(
        "command Guard special shield_wall",
        "a special command, once per battle; the GM rules its effect",
        sends=("GiveCommand",),
    ),
    MailLine(
        "command Axes slay Orcs with axes damage burn",
        (
            "the attacker's choices: with needler|slayer|axes|hammers (P-BAT-2), damage <type> (P-BAT-5), "
            "allocate <unit>, ..."
        ),
        sends=("GiveCommand",),
    ),
    MailLine(
        "command Host hold advance restore 1 pass Ox",
        "(Bloodlust, P-BAT-6), restore <momentum> (Shieldbearers), pass <ally> (Supports, P-BAT-7)",
        sends=("GiveCommand",),
    ),
    MailLine(
        "surrender offer leave the ford",
        'Goals: spend 1 escalation to offer terms; or "surrender pass"',
        sends=("OfferTerms",),
    ),
    MailLine(
        "surrender decline",
        "answer terms offered to your side: accept|decline (P-BAT-9)",
        sends=("AnswerTerms",),
    ),
    MailLine(
        "retreat Host",
        'Cleanup: retreat armies; "retreat rout Guard 0, 2" routs units; "retreat none" passes',
        sends=("RetreatArmies",),
    ),
    MailLine(
        "adjust Gondor +5 coin, -1 fear for taxes",
        "credit or debit a wallet (GM-18)",
        sends=("AdjustResources",),
    ),
    MailLine(
        "award Gondor 2 fame for the song",
        "fame (GM-18)",
        sends=("AwardFame",),
    ),
    MailLine(
        "answer favor-1a2b3c4d It is in the Shire.",
        "an insight's question or a favor's request (GM-21)",
        sends=("AnswerQuestion",),
    ),
    MailLine(
        "task done amb-1a2b3c4d t1 fame 3",
        "a task done (GM-11), optionally a power's share of the fame",
        sends=("CompleteTask",),
    ),
    MailLine(
        "task lost amb-1a2b3c4d t2 the ford fell",
        "a task this power can no longer do (P-AMBI-1)",
        sends=("LoseTask",),
    ),
    MailLine(
        "mana Wizard 3 F",
        "grant mana (P-MAG-1)",
        sends=("GrantMana",),
    ),
    MailLine(
        "channel 2 E into act-3f2e1d0c9b",
        "mana the action's power gains in it (P-AMB-37)",
        sends=("ChannelMana",),
    ),
    MailLine(
        "teach fireball to Wizard",
        "a spell the power learns (GM-15)",
        sends=("TeachSpell",),
    ),
    MailLine(
        "dispel cast-1a2b3c4d with act-3f2e1d0c9b",
        "the action dispels a permanent ritual (P-RES-6)",
        sends=("DeclareDispel",),
    ),
    MailLine(
        "claim Bree for Gondor by annex",
        "a claim: annex, commandeer, infiltrate or ruling (P-TOWN-1)",
        sends=("SetClaim",),
    ),
    MailLine(
        "unclaim Bree from Gondor by conquest",
        "a claim lost (P-TOWN-1)",
        sends=("DropClaim",),
    ),
    MailLine(
        "reveal Barrow-downs to Rangers",
        "show a power a hidden feature (P.4)",
        sends=("RevealFeature",),
    ),
    MailLine(
        "dice 2d6 for Gondor public",
        "NdX, or a roll the rules fix by its purpose (P-DICE-13)",
        sends=("RollDice",),
    ),
    MailLine(
        "terms Spymaster fee 2, loyalty loyal",
        "an agent's, industry's or army's terms (P-ASSET-5..7)",
        sends=("SetAssetTerms",),
    ),
    MailLine(
        "quota Aragorn leading_army on",
        "a quota perk starts (on) or stops (off) applying (P-ACT-1)",
        sends=("ChangeQuotaPerk",),
    ),
    MailLine(
        "subtle act-3f2e1d0c9b in Orthanc overcome",
        (
            'a subtle action inside a stronghold; without "overcome" refused unless the stronghold is the '
            "actor's (P-FEAT-3)"
        ),
        sends=("RuleSubtle",),
    ),
    MailLine(
        "mechanisms Rangers emissaries, coercion",
        ('a conspiracy\'s generation mechanisms (P-INFL-5), and one that fired (intimidation: the levels, "rank 2 3")'),
        sends=("SetMechanisms",),
    ),
    MailLine(
        "generate Rangers emissaries at 0,0 rank 2",
        "",
        sends=("GenerateInfluence",),
    ),
    MailLine(
        "perk grant Gondor Forced March",
        "a starting perk[: <choice>] (P-DEV-4)",
        sends=("GrantPerk",),
    ),
    MailLine(
        "perk nerf Gondor Forced March for too strong",
        "a nerf; the power keeps, refunds or swaps it (P-DEV-6)",
        sends=("NerfPerk",),
    ),
    MailLine(
        "perk define Harbour Spies group influence repeatable versus Mass Channel",
        "a perk of this game (P-DEV-5)",
        sends=("DefinePerk",),
    ),
    MailLine(
        "perk magic Wizard vessel_heart",
        "[element <E>] [spells <spell>, <spell>] (P-MAG-1, P-MAG-6)",
        sends=("GrantMagicPerk",),
    ),
    MailLine(
        "grimoire freeze-river slow 1WW range 3: Freeze River",
        "[difficulty <n>] [permanent] [specific] [for <power>]",
        sends=("DefineSpell",),
    ),
    MailLine(
        "conduit set Rangers circle at 0,0 kind person tower: the stone circle",
        "[capitol] (P-MAG-5)",
        sends=("SetConduit",),
    ),
    MailLine(
        "conduit remove Rangers circle",
        "",
        sends=("RemoveConduit",),
    ),
    MailLine(
        "locate Aragorn 1,0",
        "where a champion truly is, for duels (P-ACT-6)",
        sends=("RecordLocation",),
    ),
    MailLine(
        "dread Smaug 5",
        "a Dragon's army grows at Tidings from 5 units (P.2.12)",
        sends=("DreadGrowth",),
    ),
    MailLine(
        "pertarget act-3f2e1d0c9b",
        "each target resists only its share (P-RES-4)",
        sends=("RulePerTarget",),
    ),
    MailLine(
        "consequence act-3f2e1d0c9b for Rangers: a wound",
        "a collaborator's own consequence (P-DICE-11)",
        sends=("ProposeShareConsequence",),
    ),
    MailLine(
        'map amend {"hexes": [{"hex": "5,0", "terrain": "coast"}], "remove": ["den"]}',
        'or "map declare {...}": the map as JSON on one line, as DeclareMap/AmendMap (P-ACT-4)',
        sends=("AmendMap", "DeclareMap"),
    ),
    MailLine(
        "record influence Rangers 4 at 0,0",
        "a power's influence in a hex (P-INFL-1)",
        sends=("SetInfluence",),
    ),
    MailLine(
        "offer Gondor minor 5 fame, 1 central, type glory: Crown; !Win the war; ?Hidden",
        "an ambition: its name, then its tasks, ! central, ? mysterious (GM-11, P-AMBI-1)",
        sends=("OfferAmbition",),
    ),
    MailLine(
        'armytype fingers {"rank": 2, "defense": 4, "armor": 2, "element": "D"}',
        "an army type: its stat block as JSON, as DefineArmyType takes it (P-ARMY-8)",
        sends=("DefineArmyType",),
    ),
    MailLine(
        "place host at 2,0 units 3 for Cult type fingers loyal hidden named The Host",
        '[garrison <id>] [personal]; or "block <JSON>" last for its own stat block (PlaceArmy)',
        sends=("PlaceArmy",),
    ),
    MailLine(
        "detect The Host by Gondor",
        "a power detected a hidden army (P.4)",
        sends=("DetectArmy",),
    ),
    MailLine(
        "supportbonus Gondor 2",
        "what its effects add to its support limit (P-SUP-2)",
        sends=("SetSupportBonus",),
    ),
    MailLine(
        "experience The Host rank 2",
        "an army's one-use Experience (P-ASSET-14)",
        sends=("GrantExperience",),
    ),
    MailLine(
        "disperse The Host",
        "an army fully dispersed by rout (P-ARMY-7)",
        sends=("RecordDispersal",),
    ),
    MailLine(
        "desert The Host to Rangers for unpaid fee",
        'an unpaid army deserts, "to" optional (P-SUP-3)',
        sends=("DesertArmy",),
    ),
    MailLine(
        "advance",
        "GM: move the calendar on, as the console's Advance (P.1.4)",
        sends=("Advance",),
    ),
    MailLine(
        "resolve The orcs were routed at the ford.",
        "GM: resolve the month in rules order and publish the announcement (P.1.4)",
        sends=("Resolve",),
    ),
    MailLine(
        "difficulty act-3f2e1d0c9b 3 sealed",
        "GM: set an action's difficulty, open or sealed (GM-2)",
        sends=("SetDifficulty",),
    ),
    MailLine(
        "grant ext-1a2b3c4d",
        "GM: grant a request for more time (GM-8)",
        sends=("GrantExtension",),
    ),
    MailLine(
        "refuse ext-1a2b3c4d not this time",
        "GM: refuse it, with a reason (GM-8)",
        sends=("RefuseExtension",),
    ),
    MailLine(
        "close s1m1-planning",
        "GM: close a window now",
        sends=("CloseWindow",),
    ),
    MailLine(
        "immunity Smaug: only dragonsbane; overcome by Rangers",
        'GM: a power\'s immunity and who knows how to overcome it (P-AMB-10); "immunity Smaug lift"',
        sends=("SetImmunity",),
    ),
    MailLine(
        "ruling act-3f2e1d0c9b resistible by Rangers, Gondor",
        "GM: who may resist an action (GM-6)",
        sends=("SetRuling",),
    ),
    MailLine(
        "status bat-1 Guard slowed 2 for the frost spell",
        "GM: a battle status on an army; 0 stacks removes it (P-BAT-12)",
        sends=("SetBattleStatus",),
    ),
    MailLine(
        "terrain bat-1 hold: forest; cover for archers",
        "GM: a battle's terrain, its effects and the default at deadlines (P.1.3)",
        sends=("SetBattleTerrain",),
    ),
    MailLine(
        "share secret Map of Moria with Rangers",
        "share a Secret with another power, irrevocably",
        sends=("ShareSecret",),
    ),
)

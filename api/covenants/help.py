"""The covenant game's help (issue 28, ``api.help``): every line of its mail grammar (domain/covenants/mail.py) with
an example and what it does; the help page shows each with the grammar's own usage (``USAGE``). The tests read every
example with the grammar and check that every verb it takes has one here."""

from __future__ import annotations

from api.help.mail import MailLine
from domain.covenants.mail import USAGE

__all__ = ["HOST_ONLY", "MAIL", "USAGE", "VERBS"]

VERBS = frozenset(USAGE)
HOST_ONLY = frozenset({"seat", "begin", "rule"})

MAIL = (
    MailLine(
        "move 3",
        "move your token to a square of the Season Track (A-TRACK-1)",
        sends=("Move",),
    ),
    MailLine(
        "generate mouse +2",
        "roll this square's generator; the Mouse familiar's +/-2 (A-TRACK-2, A-GEN-1)",
        sends=("Generate",),
    ),
    MailLine(
        "keep c12 on c3 art Cr",
        "keep the card just generated, on a card, with its Art (A-GEN-2)",
        sends=("Keep",),
    ),
    MailLine(
        "keep c14 spell Ball of Abysmal Flame",
        "a Grimoire attached to a mage teaches it the spell (A-SPELL-1)",
        sends=("Keep",),
    ),
    MailLine(
        "discard c12",
        "discard the card just generated, or the one named",
        sends=("Discard",),
    ),
    MailLine(
        "pass",
        "pass your turn; silence at the deadline counts as this (H-9)",
        sends=("Pass",),
    ),
    MailLine(
        "cast Pilum of Fire on c7, c8 with c2 vis 1",
        (
            "cast a spell on targets, with a mage, spending vis; a spell that chooses a target for every N "
            "pawns takes several (A-AMB-17)"
        ),
        sends=("Cast",),
    ),
    MailLine(
        "cast Ward against Faeries on c4 mother may i",
        "the covenant's player says it (H-12)",
        sends=("Cast",),
    ),
    MailLine(
        "challenge c9 with c2",
        "challenge another covenant's mage to Certamen (A-CERT-1)",
        sends=("Challenge",),
    ),
    MailLine(
        "art Cr in cert-1",
        "the Art your mage uses in a Certamen",
        sends=("ChooseArt",),
    ),
    MailLine(
        "bid 2 in cert-1",
        "a sealed Certamen bid: only its hash is public until both bids are in (A-AMB-7)",
        sends=("SealBid",),
    ),
    MailLine(
        "resolve cert-1",
        "resolve a Certamen once both bids are in",
        sends=("ResolveCertamen",),
    ),
    MailLine(
        "forfeit cert-1",
        "forfeit a Certamen",
        sends=("Forfeit",),
    ),
    MailLine(
        "support starve c5, c6 keep 2 gold, 1 vis",
        "allocate the season's resources at the Reckoning (A-RECK-1, A-AMB-9)",
        sends=("Support",),
    ),
    MailLine(
        "convert 2 gold to vis",
        "convert resources at the house rate",
        sends=("Convert",),
    ),
    MailLine(
        "action Scout the forest: we look for vis",
        "a Main Phase action; a custom one waits for the host (H-8)",
        sends=("TakeAction",),
    ),
    MailLine(
        "draw mouse -1",
        "draw an event on the Event square (A-EVT-1, A-GEN-1)",
        sends=("DrawEvent",),
    ),
    MailLine(
        "event fight on c4 in summer",
        "answer an event that asks you to choose",
        sends=("DecideEvent",),
    ),
    MailLine(
        "accept trade-3",
        "accept a trade offered to you (an atomic swap)",
        sends=("AnswerTrade",),
    ),
    MailLine(
        "refuse trade-3",
        "refuse a trade offered to you (the offerer: withdraw it)",
        sends=("AnswerTrade",),
    ),
    MailLine(
        "offer Ax give 3 gold, 1 vis get 2 vis",
        "offer another covenant gold, vis or provision for theirs (H-10)",
        sends=("OfferTrade",),
    ),
    MailLine(
        "rule 1 approve: a fine idea",
        "the host rules on a custom action (H-8)",
        sends=("RuleOnAction",),
    ),
    MailLine(
        "pay tax",
        "pay the Tax and Tithe assessed this season (A-EVT-4, A-RECK-4)",
        sends=("PayTax",),
    ),
    MailLine(
        "hedge give c11",
        'give up a Vis Source to a Hedge Mage Attack; "hedge curse" faces its curse',
        sends=("FaceHedgeMage",),
    ),
    MailLine(
        "hedge curse",
        "face the Hedge Mage's curse",
        sends=("FaceHedgeMage",),
    ),
    MailLine(
        "bandits fight c3 2, c4 1",
        'fight a Wave of Bandits and allocate its damage; "bandits pay": 1 gold',
        sends=("FaceBandits",),
    ),
    MailLine(
        "mouse +2 c12",
        "change the generation roll by up to 2 with the Mouse (A-GEN-1)",
        sends=("UseMouse",),
    ),
    MailLine(
        "service c3",
        'Call to Service: the Grogs you send; "service pay" (3 gold) or "service tribute" (A-RECK-4)',
        sends=("AnswerService",),
    ),
    MailLine(
        "chaos roll",
        'Season of Chaos: roll the d6; then "chaos rival <covenant>", "chaos pay", "chaos fight" (A-EVT-3, A-EX-7)',
        sends=("RollChaos", "AvertBattle"),
    ),
    MailLine(
        "chaos rival Ax",
        "the covenant you will fight at the end of the Main Phase (A-EX-7)",
        sends=("ChooseRival",),
    ),
    MailLine(
        "allocate c3 2, c4 1",
        "the damage a battle deals your covenant, capacity first (A-BAT-1, H-6)",
        sends=("AllocateDamage",),
    ),
    MailLine(
        "no counter",
        "you will not counter the spells a battle waits on (H-15, A-EX-5)",
        sends=("NoCounter",),
    ),
    MailLine(
        "heal c5 with c6",
        "your Herbalist removes damage from another being of your covenant",
        sends=("Heal",),
    ),
    MailLine(
        "plague c5, c6",
        "the beings of your covenant that take a Plague's damage",
        sends=("ChoosePlagued",),
    ),
    MailLine(
        "tribunal",
        "pay 1 vis to unmark your covenant at the Gathering of the Tribunal",
        sends=("AttendTribunal",),
    ),
    MailLine(
        "investigate",
        "Quaesitor Investigation: roll for each of your mages not yet investigated (A-EVT-3)",
        sends=("Investigate",),
    ),
    MailLine(
        'seat bob Bob "Ax of Ely" arts Cr, In, Co, Im, Vi score 3 host',
        (
            "the host seats a covenant before the game begins; no arts: rolled; score: the points it begins "
            "with (A-EX-11, H-14)"
        ),
        sends=("AddCovenant",),
    ),
    MailLine(
        "begin",
        "the host begins the game: the starting player and the starting cards (A-ORDER-2, H-1)",
        sends=("BeginGame",),
    ),
)

"""The one notification policy (issue 31, item 3; ``application.notify_policy``): a seat's choices per channel and
kind, quiet hours in its zone (held until they end, across midnight and clock changes), a deadline warning that
cannot wait, and the mail mode. The quiet hours' end is checked against a minute-by-minute walk of the seat's clock
(hypothesis), which a fixed offset, a wrong day or a clock change read the wrong way all fail."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from application.notify_policy import Decision, Preferences, decide, is_quiet, kind_of, quiet_end
from application.push import KINDS as PUSH_KINDS
from domain.platform.notifications import KINDS, PUBLIC_KINDS

UTC = timezone.utc
BERLIN = "Europe/Berlin"
NIGHT = Preferences(quiet_from="22:00", quiet_until="07:00")


def at(text: str, zone: str = BERLIN) -> datetime:
    """A wall time in a zone, as a UTC instant."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def local(moment: datetime, zone: str = BERLIN) -> str:
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


@pytest.mark.parametrize(
    ("now", "held_until"),
    [
        ("2026-12-07 21:59", None),  # before they begin
        ("2026-12-07 22:00", "2026-12-08 07:00 CET"),  # they begin: held until the next morning
        ("2026-12-07 23:30", "2026-12-08 07:00 CET"),
        ("2026-12-08 03:00", "2026-12-08 07:00 CET"),  # after midnight: the same morning
        ("2026-12-08 07:00", None),  # they have ended
        ("2026-03-28 23:00", "2026-03-29 07:00 CEST"),  # clocks go forward in the night: still 07:00 on the clock
        ("2026-10-24 23:00", "2026-10-25 07:00 CET"),  # and back
    ],
)
def test_news_in_quiet_hours_waits_until_they_end_on_the_seats_clock(now, held_until):
    decision = decide(NIGHT, "mail", "phase", at(now), BERLIN)
    if held_until is None:
        assert decision == Decision("now")
    else:
        assert decision.action == "hold" and local(decision.until) == held_until


def test_quiet_hours_within_one_day_hold_only_within_them():
    lunch = Preferences(quiet_from="12:00", quiet_until="13:30")
    assert decide(lunch, "push", "post", at("2026-12-07 11:59"), BERLIN) == Decision("now")
    held = decide(lunch, "push", "post", at("2026-12-07 12:10"), BERLIN)
    assert held.action == "hold" and local(held.until) == "2026-12-07 13:30 CET"
    assert decide(lunch, "push", "post", at("2026-12-07 13:30"), BERLIN) == Decision("now")


def test_quiet_hours_are_read_in_the_seats_zone_not_utc():
    # 23:00 in Berlin is 22:00 UTC; in New York it is 17:00, no quiet hour there
    assert decide(NIGHT, "mail", "phase", at("2026-12-07 23:00"), BERLIN).action == "hold"
    assert decide(NIGHT, "mail", "phase", at("2026-12-07 23:00"), "America/New_York") == Decision("now")


def test_a_deadline_within_the_quiet_hours_is_warned_of_at_once():
    now = at("2026-12-07 23:00")
    assert decide(NIGHT, "mail", "deadline", now, BERLIN, deadline=at("2026-12-08 06:00")) == Decision("now")
    later = decide(NIGHT, "mail", "deadline", now, BERLIN, deadline=at("2026-12-08 12:00"))
    assert later.action == "hold" and local(later.until) == "2026-12-08 07:00 CET"
    # only a deadline warning cannot wait: other news with a deadline near is held
    assert decide(NIGHT, "mail", "phase", now, BERLIN, deadline=at("2026-12-08 06:00")).action == "hold"


def test_a_kind_turned_off_is_dropped_and_one_for_the_digest_is_gathered_on_its_channel_only():
    prefs = Preferences(mail={"post": "off", "results": "digest"}, push={"post": "digest"})
    noon = at("2026-12-07 12:00")
    assert decide(prefs, "mail", "post", noon, BERLIN) == Decision("drop")
    assert decide(prefs, "push", "post", noon, BERLIN) == Decision("digest")
    assert decide(prefs, "mail", "results", noon, BERLIN) == Decision("digest")
    assert decide(prefs, "push", "results", noon, BERLIN) == Decision("now")
    assert decide(prefs, "mail", "phase", noon, BERLIN) == Decision("now")


def test_the_mail_mode_still_rules_mail():
    noon = at("2026-12-07 12:00")
    assert decide(Preferences(mail_mode="off"), "mail", "deadline", noon, BERLIN) == Decision("drop")
    assert decide(Preferences(mail_mode="off"), "push", "deadline", noon, BERLIN) == Decision("now")
    assert decide(Preferences(mail_mode="digest"), "mail", "phase", noon, BERLIN) == Decision("digest")
    assert (
        decide(Preferences(mail_mode="digest", mail={"phase": "off"}), "mail", "phase", noon, BERLIN).action == "drop"
    )


def test_digest_and_drop_are_not_held_by_quiet_hours():
    prefs = Preferences(mail={"post": "digest", "end": "off"}, quiet_from="22:00", quiet_until="07:00")
    night = at("2026-12-07 23:00")
    assert decide(prefs, "mail", "post", night, BERLIN) == Decision("digest")
    assert decide(prefs, "mail", "end", night, BERLIN) == Decision("drop")


def test_an_unknown_channel_is_refused():
    with pytest.raises(ValueError, match="no channel 'sms'"):
        decide(Preferences(), "sms", "post", at("2026-12-07 12:00"), BERLIN)


# ---------------------------------------------------------------------- the end of quiet hours, by walking the clock

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham", "UTC"]
CLOCKS = st.builds(lambda h, m: f"{h:02d}:{m:02d}", st.integers(0, 23), st.sampled_from([0, 15, 30, 45]))


def walked_end(prefs: Preferences, now: datetime, zone: str) -> datetime | None:
    """The first whole minute at or after ``now`` at which the seat's clock is out of its quiet hours."""
    tz = ZoneInfo(zone)
    if not is_quiet(prefs, now.astimezone(tz).time()):
        return None
    step = now.replace(second=0, microsecond=0)
    if step < now:
        step += timedelta(minutes=1)
    for _ in range(26 * 60):
        if not is_quiet(prefs, step.astimezone(tz).time()):
            return step
        step += timedelta(minutes=1)
    raise AssertionError("quiet for more than a day")


@settings(max_examples=300, deadline=None)
@given(
    quiet_from=CLOCKS,
    quiet_until=CLOCKS,
    zone=st.sampled_from(ZONES),
    now=st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC)),
)
def test_quiet_hours_end_at_the_first_minute_the_seats_clock_is_past_them(quiet_from, quiet_until, zone, now):
    if quiet_from == quiet_until:
        return
    prefs = Preferences(quiet_from=quiet_from, quiet_until=quiet_until)
    expected = walked_end(prefs, now, zone)
    assert quiet_end(prefs, now, zone) == expected
    decision = decide(prefs, "push", "post", now, zone)
    assert decision == (Decision("now") if expected is None else Decision("hold", expected))


@settings(max_examples=100, deadline=None)
@given(
    zone=st.sampled_from(["Europe/Berlin", "America/New_York"]),
    day=st.sampled_from(["2026-03-08", "2026-03-29", "2026-10-25", "2026-11-01"]),  # the clock changes
    minute=st.integers(0, 24 * 60 - 1),
    quiet_from=CLOCKS,
    quiet_until=st.sampled_from(["01:30", "02:00", "02:30", "03:00", "07:00"]),
)
def test_quiet_hours_across_a_clock_change(zone, day, minute, quiet_from, quiet_until):
    if quiet_from == quiet_until:
        return
    now = at(day + " 00:00", zone) + timedelta(minutes=minute)
    prefs = Preferences(quiet_from=quiet_from, quiet_until=quiet_until)
    assert quiet_end(prefs, now, zone) == walked_end(prefs, now, zone)


def test_quiet_hours_whose_end_and_next_start_the_clock_skips_go_on_without_a_break():
    """Hypothesis found it: quiet 02:15 to 02:00 in Berlin, the night of 29 March 2026 (02:00 becomes 03:00). From
    midnight the quiet hours would end at 02:00, which the clock skips; it reads 03:00, past the next 02:15 start
    too, so they go on until 02:00 the next night (00:00 UTC on the 30th), as the minute-by-minute walk says. They
    once ended at the jump (01:00 UTC) and let the news out in the middle of them."""
    prefs = Preferences(quiet_from="02:15", quiet_until="02:00")
    now = datetime(2026, 3, 28, 23, 0, tzinfo=timezone.utc)
    assert quiet_end(prefs, now, BERLIN) == walked_end(prefs, now, BERLIN) == datetime(2026, 3, 30, tzinfo=timezone.utc)


def test_the_walk_itself_tells_a_skipped_end_from_the_wall_time():
    """02:30 does not exist in Berlin on 29 March 2026: quiet hours until 02:30 end as the clock jumps to 03:00."""
    prefs = Preferences(quiet_from="01:00", quiet_until="02:30")
    end = quiet_end(prefs, at("2026-03-29 01:45"), BERLIN)
    assert local(end) == "2026-03-29 03:00 CEST" and end == walked_end(prefs, at("2026-03-29 01:45"), BERLIN)


def test_where_the_clock_is_set_back_quiet_hours_end_at_the_later_reading_once_it_is_the_one_to_come():
    """New York, 1 November 2026: 01:00 to 02:00 comes twice. At 01:00 the second time (06:00 UTC), quiet hours
    until 01:30 end at 01:30 the second time (06:30 UTC), not at the first 01:30, which has passed (hypothesis found
    this)."""
    prefs = Preferences(quiet_from="00:00", quiet_until="01:30")
    now = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)
    assert quiet_end(prefs, now, "America/New_York") == datetime(2026, 11, 1, 6, 30, tzinfo=UTC)
    first = datetime(2026, 11, 1, 5, 0, tzinfo=UTC)  # 01:00 the first time: its 01:30 comes first
    assert quiet_end(prefs, first, "America/New_York") == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)


def test_is_quiet_across_midnight():
    assert is_quiet(NIGHT, time(23, 0)) and is_quiet(NIGHT, time(0, 0)) and is_quiet(NIGHT, time(6, 59))
    assert not is_quiet(NIGHT, time(7, 0)) and not is_quiet(NIGHT, time(21, 59))
    assert not is_quiet(Preferences(), time(3, 0))


# ---------------------------------------------------------------------- one vocabulary of kinds


class Rules:
    announces = {"ResolutionPublished": "results", "GameEnded": "end"}
    marks = frozenset({"StepBegan", "PowerAdded"})


@pytest.mark.parametrize(
    ("note", "body", "kind"),
    [
        ("reminder w1 24", {"closes_at": "2026-12-08T12:00:00+00:00"}, "deadline"),
        ("post", {"thread_id": "table"}, "post"),
        ("post", {"thread_id": "narration"}, "post"),
        ("post", {"thread_id": "desk:ana"}, "private"),
        ("post", {"thread_id": "t-1"}, "private"),
        ("ResolutionPublished", {}, "results"),
        ("GameEnded", {}, "end"),
        ("StepBegan", {}, "phase"),
        ("ResistanceOffered", {}, "move"),
        ("ChoiceOffered", {}, "move"),
        ("BattleStepBegan", {}, "move"),
        ("blocked", {}, "move"),
        ("GameRolledBack", {}, "other"),
    ],
)
def test_each_notification_is_one_kind_of_the_one_vocabulary(note, body, kind):
    assert kind_of(Rules(), note, body) == kind


def test_the_webhooks_kinds_are_the_public_part_of_the_one_vocabulary():
    from application import webhooks

    assert tuple(webhooks.KINDS) == PUBLIC_KINDS and set(PUBLIC_KINDS) < set(KINDS)


def test_a_post_that_mentions_the_seat_is_a_mention_for_it_alone_and_its_choice_decides():
    """Issue 28: mail and push read a post that names a seat as ``mention``, one kind in one vocabulary, so a seat
    that turned table posts off still hears when it is named, and one that turned mentions off does not."""
    NOON = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)
    body = {"thread_id": "table", "mentions": ["circ"]}
    assert kind_of(None, "post", body, "circ") == "mention" and kind_of(None, "post", body, "sov") == "post"
    assert kind_of(None, "post", {"thread_id": "thr-a", "mentions": []}, "circ") == "private"
    quiet = Preferences(mail={"post": "off"})
    assert decide(quiet, "mail", "mention", NOON, "UTC").action == "now"
    assert decide(quiet, "mail", "post", NOON, "UTC").action == "drop"
    assert decide(Preferences(push={"mention": "off"}), "push", "mention", NOON, "UTC").action == "drop"
    assert set(PUSH_KINDS) <= set(KINDS)  # a device asks for kinds by the names the preferences use

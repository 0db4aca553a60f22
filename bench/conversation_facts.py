"""Fact episodes of the conversation benchmark: dialogue lines that carry one person's facts,
distractor lines that share their words, and the paraphrased questions those facts answer."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from bench import conversation_vocab as v

QType = Literal["single-hop", "multi-hop", "temporal", "open-domain"]
QTYPES: tuple[QType, ...] = ("single-hop", "multi-hop", "temporal", "open-domain")


@dataclass(frozen=True)
class Line:
    """One turn's speaker and text; `ref` names it when a question points at it."""

    speaker: str
    text: str
    ref: str = ""


@dataclass(frozen=True)
class Episode:
    """Consecutive lines said in one session."""

    session: int
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Draft:
    """A question before layout: `answer` may hold date placeholders resolved from its refs
    ({date:REF}, {prev:REF:WEEKDAY}, {next:REF:WEEKDAY}, {plus:REF:DAYS})."""

    qid: str
    qtype: QType
    text: str
    answer: str
    refs: tuple[str, ...]


@dataclass
class Plan:
    """Everything one conversation says about its people, session by session."""

    episodes: list[Episode] = field(default_factory=list[Episode])
    drafts: list[Draft] = field(default_factory=list[Draft])

    def say(self, session: int, *lines: Line) -> None:
        self.episodes.append(Episode(session, lines))

    def ask(self, qtype: QType, text: str, answer: str, *refs: str) -> None:
        """A question answered by the turns `refs`; its id is the first ref and the type."""
        self.drafts.append(Draft(f"{refs[0]}:{qtype}", qtype, text, answer, refs))


@dataclass(frozen=True)
class Person:
    """The subject of some facts, the friend they talk to, and the conversation's dice."""

    who: str
    other: str
    sessions: int
    rng: random.Random
    bystanders: tuple[str, ...]

    def ref(self, label: str) -> str:
        return f"{self.who.lower()}.{label}"

    def one(self) -> int:
        return self.rng.randrange(self.sessions)

    def two(self) -> tuple[int, int]:
        first = self.rng.randrange(self.sessions - 1)
        return first, self.rng.randrange(first + 1, self.sessions)

    def after(self, session: int) -> int:
        return self.rng.randrange(min(session + 1, self.sessions - 1), self.sessions)

    def name(self) -> str:
        return self.rng.choice(self.bystanders)


def stamp(kind: str, ref: str, days: int | None = None) -> str:
    """A date placeholder of a draft answer, resolved once the ref's session date is known."""
    return f"{{{kind}:{ref}}}" if days is None else f"{{{kind}:{ref}:{days}}}"


def pet(p: Person, plan: Plan) -> None:
    """A dog adopted in one session, its vet visit later, maybe a kitten; split over turns."""
    adopted, vet = p.two()
    breed, dog = p.rng.choice(v.DOG_BREEDS), p.rng.choice(v.PET_NAMES)
    adopt, detail, asked, told = (p.ref(x) for x in ("adopt", "breed", "vetq", "veta"))
    opener = p.rng.choice(v.ADOPTION_NEWS)
    plan.say(
        adopted,
        Line(p.who, opener, adopt),
        Line(p.other, "No way! What kind? Does it have a name yet?"),
        Line(
            p.who,
            f"A {breed}, ten weeks old. We named him {dog}, he already owns the sofa.",
            detail,
        ),
    )
    plan.ask("single-hop", f"What breed is {p.who}'s new four-legged family member?", breed, detail)
    plan.ask("temporal", f"When did {p.who} adopt a dog?", stamp("prev", adopt, 5), adopt)
    finding, plain = p.rng.choice(v.VET_FINDINGS)
    plan.say(
        vet,
        Line(p.other, f"How did the appointment go? What did the vet say about {dog}?", asked),
        Line(p.who, f"Not great: {finding}.", told),
    )
    plan.ask(
        "single-hop",
        f"What did the animal doctor conclude about {p.who}'s dog {dog}?",
        plain,
        asked,
        told,
    )
    plan.ask(
        "temporal",
        f"When is {p.who}'s {dog} due back at the animal clinic?",
        stamp("next", told, 1),
        asked,
        told,
    )
    plan.say(p.after(adopted), Line(p.who, f"{dog} chewed through another phone charger."))
    plan.say(p.one(), Line(p.other, f"My aunt named her terrier {dog}, funnily enough."))
    if p.rng.random() < 0.5:
        _kitten(p, plan, adopted, (dog, breed), detail)


def _kitten(p: Person, plan: Plan, adopted: int, dog: tuple[str, str], detail: str) -> None:
    """A kitten joins the dog later: the second half of a multi-hop answer."""
    kitten, cat = p.ref("kitten"), p.rng.choice(v.PET_NAMES)
    kind = p.rng.choice(v.CAT_KINDS)
    line = f"Oh, and {dog[0]} has a little sister now: a {kind} kitten called {cat}."
    plan.say(p.after(adopted), Line(p.who, line, kitten))
    plan.ask(
        "multi-hop",
        f"Which animals live with {p.who} these days?",
        f"{dog[0]} the {dog[1]} and {cat} the {kind} kitten",
        detail,
        kitten,
    )


def photo(p: Person, plan: Plan) -> None:
    """A photo shown in one turn, its place named two turns later."""
    (place, short), (light, light_q) = p.rng.choice(v.LANDMARKS), p.rng.choice(v.LIGHT)
    shown, named = p.ref("photo"), p.ref("place")
    opener, reply = p.rng.choice(v.PHOTO_SHOWN), p.rng.choice(v.PHOTO_ASKED)
    plan.say(
        p.one(),
        Line(p.who, opener, shown),
        Line(p.other, reply),
        Line(p.who, f"It's {place} {light}. Four hours of driving, worth every minute.", named),
    )
    plan.ask("single-hop", f"Which landmark did {p.who} capture {light_q}?", place, shown, named)
    plan.ask(
        "temporal",
        f"When did {p.who} go to {short}?",
        "the weekend before " + stamp("date", shown),
        shown,
        named,
    )
    plan.say(p.one(), Line(p.other, f"My parents want to see {place} in spring. Worth it?"))


def trips(p: Person, plan: Plan) -> None:
    """Two business trips in different sessions; a friend mentions one of the cities too."""
    first, second = p.two()
    city1, city2, city3 = p.rng.sample(v.CITIES, 3)
    purpose1, purpose2 = p.rng.sample(v.WORK_PURPOSES, 2)
    trip1, trip2 = p.ref("trip1"), p.ref("trip2")
    plan.say(
        first,
        Line(p.other, "You went quiet for a while, everything okay?"),
        Line(p.who, f"All good, the company flew me out to {city1} for {purpose1}.", trip1),
    )
    plan.say(second, Line(p.who, f"Just got back from {city2}. Work again, {purpose2}.", trip2))
    plan.ask(
        "multi-hop",
        f"Which two cities did {p.who} visit on business?",
        f"{city1} and {city2}",
        trip1,
        trip2,
    )
    plan.ask(
        "temporal",
        f"Around when was {p.who}'s work visit to {city1}?",
        "just before " + stamp("date", trip1),
        trip1,
    )
    plan.say(p.one(), Line(p.other, f"{p.name()} just moved to {city1}, small world."))
    plan.say(p.one(), Line(p.other, f"I've always wanted to see {city3}. Maybe next year."))


def job(p: Person, plan: Plan) -> None:
    """The old job in one session, the new employer in a later one."""
    before, after = p.two()
    (doing1, noun1, _), (doing2, noun2, topic) = p.rng.sample(v.JOBS, 2)
    company1, company2 = p.rng.sample(v.COMPANIES, 2)
    old, new = p.ref("job1"), p.ref("job2")
    plan.say(
        before,
        Line(p.other, "How's work treating you?"),
        Line(p.who, f"Same as ever. Still {doing1} at {company1}, same commute.", old),
    )
    plan.say(
        after,
        Line(p.who, f"I have news: I accepted the offer from {company2}! I'll be {doing2}.", new),
        Line(p.other, "Congratulations!! You totally deserve it."),
    )
    plan.ask("single-hop", f"Which organisation is {p.who} joining?", company2, new)
    plan.ask(
        "multi-hop",
        f"What was {p.who}'s line of work before the switch, and now?",
        f"{noun1} at {company1}, then {noun2} at {company2}",
        old,
        new,
    )
    plan.ask("temporal", f"When did {p.who} agree to join {company2}?", stamp("date", new), new)
    plan.ask(
        "open-domain",
        f"Could {p.who} give useful advice about {topic}?",
        f"yes, the new job: {noun2}",
        new,
    )
    plan.say(p.one(), Line(p.other, f"My brother is {doing2}, he says it's exhausting."))


def hobbies(p: Person, plan: Plan) -> None:
    """A course started one session (progress later), and a second pastime another session."""
    first, second = p.two()
    (course1, impression, progress, para1, gift), (course2, _, _, para2, _) = p.rng.sample(
        v.HOBBIES, 2
    )
    start, later, other = p.ref("hobby1"), p.ref("hobby1.progress"), p.ref("hobby2")
    plan.say(
        first,
        Line(p.who, f"I finally signed up for {course1}, the first lesson was on Thursday.", start),
        Line(p.other, "Ooh, how was it?"),
        Line(p.who, impression),
    )
    plan.say(p.after(first), Line(p.who, progress, later))
    plan.say(
        second,
        Line(p.who, f"New obsession: I joined {course2} last week.", other),
        Line(p.other, "You and your projects, haha."),
    )
    plan.ask("temporal", f"When did {p.who} start {para1}?", stamp("prev", start, 3), start)
    plan.ask(
        "open-domain",
        f"What would make a thoughtful birthday present for {p.who}?",
        gift,
        start,
        later,
    )
    plan.ask(
        "multi-hop",
        f"Which two new pastimes has {p.who} taken up?",
        f"{para1} and {para2}",
        start,
        other,
    )


def constraint(p: Person, plan: Plan) -> None:
    """An allergy, fear or diet said in passing; the question asks for an inference from it."""
    said, question, answer = p.rng.choice(v.CONSTRAINTS)
    ref = p.ref(f"constraint{len(plan.drafts)}")
    text = said.format(friend=p.name())
    plan.say(
        p.one(),
        Line(p.who, f"{p.rng.choice(('Ugh', 'Long story', 'Honestly'))}, {text}.", ref),
        Line(p.other, p.rng.choice(("Oh no, that sounds awful.", "Poor you!"))),
    )
    plan.ask("open-domain", question.format(who=p.who), answer, ref)


def book(p: Person, plan: Plan) -> None:
    """A novel named in one turn, its plot two turns later; a friend mentions the author."""
    title, author, plot, genre = p.rng.choice(v.BOOKS)
    named, told = p.ref("book"), p.ref("plot")
    plan.say(
        p.one(),
        Line(p.who, f"I'm halfway through {title} by {author}, up past midnight again.", named),
        Line(p.other, "Ooh, what's it about?"),
        Line(p.who, f"It's about {plot}.", told),
    )
    plan.ask("single-hop", f"Which {author} novel has been costing {p.who} sleep?", title, named)
    plan.ask("open-domain", f"What kind of stories does {p.who} seem to enjoy?", genre, named, told)
    plan.say(p.one(), Line(p.other, f"{author} has a new book out, I saw it at the airport."))


def family(p: Person, plan: Plan) -> None:
    """A relative's wedding three weeks after the session it is announced in."""
    (relation, relation_q), name, city = (
        p.rng.choice(v.RELATIVES),
        p.name(),
        p.rng.choice(v.CITIES),
    )
    ref = p.ref("wedding")
    plan.say(
        p.one(),
        Line(p.who, f"My {relation} {name} is getting married in {city} in three weeks!", ref),
        Line(p.other, "That's lovely! Are you giving a speech?"),
        Line(p.who, "Yes, and I've rewritten it four times already."),
    )
    plan.ask(
        "single-hop", f"In which city will {p.who}'s {relation_q} {name} tie the knot?", city, ref
    )
    plan.ask(
        "temporal",
        f"Roughly when is the wedding of {p.who}'s {relation_q}?",
        stamp("plus", ref, 21),
        ref,
    )
    plan.say(p.one(), Line(p.who, f"{name} sent me a forty-minute voice note about nothing."))


def cooking(p: Person, plan: Plan) -> None:
    """A kitchen disaster at someone's birthday."""
    (dish, disaster), friend = p.rng.choice(v.DISHES), p.name()
    ref = p.ref("cooking")
    plan.say(
        p.one(),
        Line(p.who, f"I tried making {dish} from scratch for {friend}'s birthday.", ref),
        Line(p.other, "Brave. How did it go?"),
        Line(p.who, f"Let's just say {disaster}."),
    )
    plan.ask(
        "single-hop", f"What did {p.who} attempt to cook for {friend}'s celebration?", dish, ref
    )


def race(p: Person, plan: Plan) -> None:
    """A half marathon on the Sunday before the session, asked about and then told."""
    city, time = p.rng.choice(v.CITIES), p.rng.choice(v.FINISH_TIMES)
    asked, told = p.ref("raceq"), p.ref("race")
    plan.say(
        p.one(),
        Line(p.other, f"Did you end up running on Sunday, {p.who}?", asked),
        Line(p.who, f"I did! The {city} half marathon in {time}. I could barely walk after.", told),
    )
    plan.ask(
        "single-hop", f"How long did {p.who} take for the 21-kilometre event?", time, asked, told
    )
    plan.ask(
        "temporal",
        f"On which date did {p.who} run in {city}?",
        stamp("prev", asked, 6),
        asked,
        told,
    )


def home(p: Person, plan: Plan) -> None:
    """A lease signed in one session, the new home described in a later one."""
    signed, settled = p.two()
    place, feature = p.rng.choice(v.HOMES)
    lease, unpacked = p.ref("lease"), p.ref("unpacked")
    plan.say(signed, Line(p.who, f"We signed the lease! Moving to {place} this month.", lease))
    line = f"Finally unpacked the last box at the new place. {feature.capitalize()} is the best."
    plan.say(settled, Line(p.who, line, unpacked))
    plan.ask(
        "temporal",
        f"When did {p.who} commit to renting the new apartment?",
        stamp("date", lease),
        lease,
    )
    plan.ask(
        "multi-hop",
        f"Which part of town did {p.who} relocate to, and what's the favourite spot there?",
        f"{place}; {feature}",
        lease,
        unpacked,
    )


BUILDERS: tuple[Callable[[Person, Plan], None], ...] = (
    pet, photo, trips, job, hobbies, constraint, constraint, book, family, cooking, race, home,
)  # fmt: skip

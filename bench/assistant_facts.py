"""Fact episodes of the assistant-chat benchmark: a user's short asks that carry their facts, an
assistant's long answers (some with the assistant's own advice), and the questions they answer."""

from __future__ import annotations

import random
from collections.abc import Callable

from bench import assistant_vocab as a
from bench import conversation_vocab as v
from bench.conversation_facts import Line, Person, Plan, stamp

MIN_PARAGRAPHS, MAX_PARAGRAPHS = 3, 7


def answer(rng: random.Random, topic: str, core: str = "") -> str:
    """An assistant's long answer: paragraphs of the topic's advice, with `core` (what this
    answer says that no other does) as one more paragraph at a random place."""
    advice = a.ADVICE[topic]
    paragraphs = rng.sample(advice, rng.randint(MIN_PARAGRAPHS, min(MAX_PARAGRAPHS, len(advice))))
    if core:
        paragraphs.insert(rng.randint(0, len(paragraphs)), core)
    return "\n\n".join(paragraphs)


def _exchange(p: Person, ask: str, topic: str, core: str = "", ask_ref: str = "",
              answer_ref: str = "") -> tuple[Line, Line]:  # fmt: skip
    return Line(p.who, ask, ask_ref), Line(p.other, answer(p.rng, topic, core), answer_ref)


def pet(p: Person, plan: Plan) -> None:
    """A puppy adopted in one session, its vet visit later, maybe a kitten after."""
    adopted, vet = p.two()
    breed, dog = p.rng.choice(v.DOG_BREEDS), p.rng.choice(v.PET_NAMES)
    adopt, told = p.ref("adopt"), p.ref("vet")
    news = p.rng.choice(v.ADOPTION_NEWS)
    ask = f"{news} A {breed} called {dog}. What does a puppy need in the first week?"
    core = "Congratulations, that is wonderful news! Here is what helps most in the first week."
    plan.say(adopted, *_exchange(p, ask, "pets", core, adopt))
    plan.ask("single-hop", f"What breed is {p.who}'s new four-legged family member?", breed, adopt)
    plan.ask("temporal", f"When did {p.who} adopt a dog?", stamp("prev", adopt, 5), adopt)
    finding, plain = p.rng.choice(v.VET_FINDINGS)
    ask = f"{dog} saw the vet today: {finding}. How do I keep him calm until then?"
    plan.say(vet, *_exchange(p, ask, "pets", "", told))
    question = f"What did the animal doctor conclude about {p.who}'s dog {dog}?"
    plan.ask("single-hop", question, plain, told)
    question = f"When is {p.who}'s {dog} due back at the animal clinic?"
    plan.ask("temporal", question, stamp("next", told, 1), told)
    if p.rng.random() < 0.5:
        kitten, cat, kind = p.ref("kitten"), p.rng.choice(v.PET_NAMES), p.rng.choice(v.CAT_KINDS)
        ask = (
            f"{dog} has a little sister now: a {kind} kitten called {cat}. How do I introduce them?"
        )
        plan.say(p.after(adopted), *_exchange(p, ask, "pets", "", kitten))
        answer_text = f"{dog} the {breed} and {cat} the {kind} kitten"
        plan.ask("multi-hop", f"Which animals live with {p.who} these days?", answer_text, adopt,
                 kitten)  # fmt: skip


def trips(p: Person, plan: Plan) -> None:
    """Two work trips in different sessions; the assistant picks a hotel for the first."""
    first, second = p.two()
    city1, city2 = p.rng.sample(v.CITIES, 2)
    purpose1, purpose2 = p.rng.sample(v.WORK_PURPOSES, 2)
    hotel = p.rng.choice(a.HOTELS)
    trip1, stay, trip2 = p.ref("trip1"), p.ref("hotel"), p.ref("trip2")
    ask = f"The company is flying me out to {city1} for {purpose1} next week. Where should I stay?"
    core = (
        f"For this trip I would book {hotel}: it is close to the centre, quiet at night and has a "
        "proper desk in every room, which matters when the days are long."
    )
    plan.say(first, *_exchange(p, ask, "travel", core, trip1, stay))
    question = f"Which hotel did the assistant suggest for {p.who}'s stay in {city1}?"
    plan.ask("single-hop", question, hotel, stay)
    question = f"Around when was {p.who}'s work visit to {city1}?"
    plan.ask("temporal", question, "the week after " + stamp("date", trip1), trip1)
    ask = f"Just got back from {city2}, work again, {purpose2}. How do I recover from that?"
    plan.say(second, *_exchange(p, ask, "travel", "", trip2))
    question = f"Which two cities did {p.who} visit on business?"
    plan.ask("multi-hop", question, f"{city1} and {city2}", trip1, trip2)


def job(p: Person, plan: Plan) -> None:
    """The old job in one session, the accepted offer in a later one."""
    before, after = p.two()
    (doing1, noun1, _), (doing2, noun2, topic) = p.rng.sample(v.JOBS, 2)
    company1, company2 = p.rng.sample(v.COMPANIES, 2)
    old, new = p.ref("job1"), p.ref("job2")
    ask = f"I'm still {doing1} at {company1} and I feel stuck. How do I know it's time to move on?"
    plan.say(before, *_exchange(p, ask, "work", "", old))
    ask = f"News: I accepted the offer from {company2}! I'll be {doing2}. How do I resign nicely?"
    plan.say(after, *_exchange(p, ask, "work", "Congratulations, well deserved!", new))
    plan.ask("single-hop", f"Which organisation is {p.who} joining?", company2, new)
    question = f"What was {p.who}'s line of work before the switch, and now?"
    plan.ask("multi-hop", question, f"{noun1} at {company1}, then {noun2} at {company2}", old, new)
    plan.ask("temporal", f"When did {p.who} agree to join {company2}?", stamp("date", new), new)
    question = f"Could {p.who} give useful advice about {topic}?"
    plan.ask("open-domain", question, f"yes, the new job: {noun2}", new)


def hobbies(p: Person, plan: Plan) -> None:
    """A course started in one session with the assistant's practice routine, progress later,
    and a second pastime in another session."""
    first, second = p.two()
    (course1, impression, progress, para1, gift), (course2, _, _, para2, _) = p.rng.sample(
        v.HOBBIES, 2
    )
    routine = p.rng.choice(a.ROUTINES)
    start, advice, later, other = (p.ref(x) for x in ("hobby1", "routine", "hobby1.p", "hobby2"))
    ask = (
        f"I signed up for {course1}, the first lesson was on Thursday. {impression} "
        "How often should I practise?"
    )
    core = (
        f"For where you are now, I would practise {routine}, and keep a short log of each session."
    )
    plan.say(first, *_exchange(p, ask, "learning", core, start, advice))
    plan.say(
        p.after(first), *_exchange(p, f"{progress} What should I try next?", "learning", "", later)
    )
    ask = f"New obsession: I joined {course2} last week. Is it silly to start two hobbies at once?"
    plan.say(second, *_exchange(p, ask, "learning", "", other))
    plan.ask("temporal", f"When did {p.who} start {para1}?", stamp("prev", start, 3), start)
    question = f"How often did the assistant tell {p.who} to practise {para1}?"
    plan.ask("single-hop", question, routine, advice)
    question = f"What would make a thoughtful birthday present for {p.who}?"
    plan.ask("open-domain", question, gift, start, later)
    question = f"Which two new pastimes has {p.who} taken up?"
    plan.ask("multi-hop", question, f"{para1} and {para2}", start, other)


def constraint(p: Person, plan: Plan) -> None:
    """An allergy, fear or diet told while asking for help; the question asks for an inference."""
    said, question, inferred = p.rng.choice(v.CONSTRAINTS)
    ref = p.ref(f"constraint{len(plan.drafts)}")
    ask = f"{said.format(friend=p.name()).capitalize()}. Is there anything I can do about it?"
    plan.say(p.one(), *_exchange(p, ask, "health", "", ref))
    plan.ask("open-domain", question.format(who=p.who), inferred, ref)


def book(p: Person, plan: Plan) -> None:
    """The assistant recommends a novel of the genre asked for; finished in a later session."""
    asked = p.one()
    genre, title, author, plot = p.rng.choice(a.RECOMMENDED_BOOKS)
    wish, named, done = p.ref("bookq"), p.ref("book"), p.ref("bookdone")
    ask = f"Can you recommend a {genre} novel for my holiday? It's all I read lately."
    core = f"I would go for {title} by {author}. It is about {plot}, and it is hard to put down."
    plan.say(asked, *_exchange(p, ask, "books", core, wish, named))
    ask = f"I finished {title} in two days, that ending! How do I find more like it?"
    plan.say(p.after(asked), *_exchange(p, ask, "books", "", done))
    question = f"Which novel did the assistant recommend to {p.who} for the holiday?"
    plan.ask("single-hop", question, title, named)
    question = f"What kind of stories does {p.who} seem to enjoy?"
    plan.ask("open-domain", question, genre, wish)
    question = f"Which book did {p.who} read in two days, and who wrote it?"
    plan.ask("multi-hop", question, f"{title} by {author}", done, named)


def family(p: Person, plan: Plan) -> None:
    """A relative's wedding three weeks after the session it is announced in."""
    (relation, relation_q), name, city = (
        p.rng.choice(v.RELATIVES),
        p.name(),
        p.rng.choice(v.CITIES),
    )
    ref = p.ref("wedding")
    ask = (
        f"My {relation} {name} is getting married in {city} in three weeks and I'm giving a "
        "speech. How do I start?"
    )
    plan.say(p.one(), *_exchange(p, ask, "events", "", ref))
    question = f"In which city will {p.who}'s {relation_q} {name} tie the knot?"
    plan.ask("single-hop", question, city, ref)
    question = f"Roughly when is the wedding of {p.who}'s {relation_q}?"
    plan.ask("temporal", question, stamp("plus", ref, 21), ref)


def cooking(p: Person, plan: Plan) -> None:
    """A dish planned for a friend's birthday, and how it went."""
    (dish, disaster), friend = p.rng.choice(v.DISHES), p.name()
    ref = p.ref("cooking")
    planned = p.one()
    ask = f"I'm making {dish} from scratch for {friend}'s birthday on Saturday. Any tips?"
    plan.say(planned, *_exchange(p, ask, "cooking", "", ref))
    plan.say(p.after(planned), *_exchange(p, f"Update: {disaster}. What went wrong?", "cooking"))
    question = f"What did {p.who} attempt to cook for {friend}'s celebration?"
    plan.ask("single-hop", question, dish, ref)


def race(p: Person, plan: Plan) -> None:
    """A half marathon on the Sunday before the session."""
    city, time = p.rng.choice(v.CITIES), p.rng.choice(v.FINISH_TIMES)
    ref = p.ref("race")
    ask = f"I ran the {city} half marathon on Sunday in {time}! How do I recover from it?"
    plan.say(p.one(), *_exchange(p, ask, "running", "Well done, that is a great result!", ref))
    question = f"How long did {p.who} take for the 21-kilometre event?"
    plan.ask("single-hop", question, time, ref)
    question = f"On which date did {p.who} run in {city}?"
    plan.ask("temporal", question, stamp("prev", ref, 6), ref)


def home(p: Person, plan: Plan) -> None:
    """A lease signed in one session, the new home described in a later one."""
    signed, settled = p.two()
    place, feature = p.rng.choice(v.HOMES)
    lease, unpacked = p.ref("lease"), p.ref("unpacked")
    ask = f"We signed the lease! Moving to {place} this month. What should I do before moving day?"
    plan.say(signed, *_exchange(p, ask, "home", "", lease))
    ask = (
        f"Finally unpacked the last box. {feature.capitalize()} is the best. How do I make a "
        "rented flat feel like home?"
    )
    plan.say(settled, *_exchange(p, ask, "home", "", unpacked))
    question = f"When did {p.who} commit to renting the new apartment?"
    plan.ask("temporal", question, stamp("date", lease), lease)
    question = f"Which part of town did {p.who} relocate to, and what's the favourite spot there?"
    plan.ask("multi-hop", question, f"{place}; {feature}", lease, unpacked)


def savings(p: Person, plan: Plan) -> None:
    """The assistant advises a monthly sum to put aside for a goal."""
    goal, goal_q, amount = p.rng.choice(a.SAVINGS)
    ref = p.ref("savings")
    ask = f"I want to save for {goal}. How much should I put aside each month?"
    core = f"From what you told me, I would put aside {amount} a month, on payday, in its own pot."
    plan.say(p.one(), *_exchange(p, ask, "money", core, "", ref))
    question = f"How much did the assistant advise {p.who} to save monthly for {goal_q}?"
    plan.ask("single-hop", question, amount, ref)


BUILDERS: tuple[Callable[[Person, Plan], None], ...] = (
    pet, trips, job, hobbies, constraint, constraint, book, family, cooking, race, home, savings,
)  # fmt: skip

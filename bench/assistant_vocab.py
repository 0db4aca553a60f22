"""Seeded vocabularies of the assistant-chat benchmark: a user's asks, the paragraphs an
assistant's long answers are built from, and what an assistant recommends.

Plain data only; `bench.assistant_facts` and `bench.assistant_chats` turn it into chats. Names,
places, pets and jobs come from `bench.conversation_vocab`.
"""

from __future__ import annotations

ASSISTANT = "Assistant"

# Paragraphs of explanation by topic: what surrounds the facts in an assistant's answer.
ADVICE: dict[str, tuple[str, ...]] = {
    "pets": (
        "The first weeks are mostly about routine. Feed at the same times every day, take the "
        "dog out right after meals and naps, and praise every success outside calmly. Accidents "
        "indoors are normal; clean them with an enzyme cleaner so the smell does not invite a "
        "repeat, and never punish after the fact.",
        "Sleep matters more than people expect: a young dog needs sixteen to eighteen hours a "
        "day. A crate or a quiet corner with a blanket gives them a den to retreat to, and "
        "short play sessions followed by rest keep them from getting overtired and bitey.",
        "Socialisation works best in small doses. Let the animal watch traffic, meet a calm "
        "adult dog, hear the vacuum cleaner from another room. Pair each new experience with "
        "a treat and leave before they get overwhelmed; the goal is curiosity, not exposure.",
        "For the vet, keep a small folder with vaccination records, the microchip number and "
        "notes on food and behaviour. Most clinics are happy to do a short happy visit, just "
        "treats and a weigh-in, so the waiting room is not only associated with needles.",
        "Pet insurance is worth comparing early, before anything shows up as a pre-existing "
        "condition. Look at the annual limit, the excess per claim and whether dental work "
        "and physiotherapy are covered, since those are the bills that surprise owners most.",
        "If there is another animal at home, introduce them on neutral ground, keep the "
        "first meetings short and give each their own feeding spot, bed and water bowl. "
        "Swapping blankets beforehand lets them get used to each other's scent.",
        "Recovery after a procedure is mostly about rest and stopping them from licking the "
        "wound. Short lead walks only, no jumping on furniture, and watch for swelling, "
        "redness or a change in appetite; call the clinic if anything looks off.",
    ),
    "travel": (
        "For a short work trip, pack for the meetings first and the evenings second. One "
        "carry-on with two outfits that mix, a charger bag with adapters, and printed copies "
        "of the agenda and the hotel booking save a lot of stress at the airport.",
        "Jet lag fades faster if you switch to local time on the plane: eat and sleep as if "
        "you had already arrived, get daylight the first morning, and avoid a long nap on "
        "arrival. Caffeine helps in the morning but makes the first night harder.",
        "Keep every receipt from the start, taxis and coffees included, and photograph them "
        "the same evening. Most expense tools accept a photo, and reconstructing a week of "
        "spending from a bank statement afterwards is where reimbursements get lost.",
        "Local transport is usually the easiest part: buy a travel card at the airport, "
        "download the city's transit app, and check whether the last trains run late "
        "enough for the team dinner. Walking between nearby meetings is often faster.",
        "A workshop or trade fair is tiring in a way office days are not. Plan a quiet "
        "hour each day, drink water, and write down the names and the one thing you want "
        "to follow up with each person you meet before the day blurs together.",
        "It is worth adding half a day for yourself if the schedule allows. A morning in a "
        "museum, a market or a park turns a blur of conference rooms into a trip you "
        "remember, and it rarely costs the company anything.",
    ),
    "work": (
        "When you compare offers, look beyond the salary: the notice period, the pension "
        "contribution, the training budget, how many days you can work from home and who "
        "you will report to. The manager shapes the day more than the job title does.",
        "The first ninety days are for listening. Meet everyone you will depend on, ask "
        "what they wish the previous person had done differently, and deliver one small, "
        "visible improvement before proposing anything large.",
        "Resigning well matters in a small industry. Tell your manager in person before "
        "anyone else, put it in a short, friendly letter, and write a handover document "
        "that someone could follow without calling you.",
        "Negotiation is expected, not rude. Thank them for the offer, name the number you "
        "are hoping for with a reason, and be ready to trade: a start date, an extra week "
        "of leave or a review after six months can all move if the salary cannot.",
        "Burnout rarely comes from one bad week; it builds when effort stops feeling "
        "connected to results. Protect a few fixed hours of focus, say no to meetings "
        "without an agenda, and keep one thing in your week that is only for you.",
        "A commute can be used rather than endured: a podcast series, a language app, or "
        "simply not looking at work messages until you arrive. If the new role changes "
        "the journey, try the route once at rush hour before the first day.",
    ),
    "learning": (
        "Beginners progress fastest with short, frequent practice: twenty minutes five "
        "days a week beats a three-hour session on Sunday. The brain consolidates between "
        "sessions, so the gaps are part of the learning, not a loss.",
        "Every new skill has a plateau around the second month, when the first easy gains "
        "are used up. That is the moment to change one thing, a new exercise, a teacher's "
        "feedback or a small project with a deadline, rather than to quit.",
        "Buy the minimum equipment first and upgrade only what limits you. Good beginner "
        "gear is cheap second-hand, and after a few months you will know exactly which "
        "tool is worth spending on and which was never needed.",
        "A class gives you structure and people to learn with; self-study gives you pace. "
        "Many people combine them: the weekly class for feedback, and a little practice "
        "at home in between so the next lesson starts where the last one ended.",
        "Keep a small log of what you did and how it felt. After a month, reading it back "
        "shows progress you stopped noticing, which is the best motivation there is.",
        "Find one person at the same level to practise with. Explaining a technique to "
        "someone else is one of the most reliable ways to understand it yourself.",
    ),
    "health": (
        "Allergies are worth taking seriously even when they seem mild. A doctor can "
        "confirm the trigger with a skin or blood test, and knowing exactly what to avoid "
        "makes daily life simpler than guessing.",
        "Carry what you need with you rather than at home: antihistamines, an inhaler or "
        "an auto-injector if one was prescribed, and a note on your phone's lock screen "
        "that tells others what to do in an emergency.",
        "Fears like heights or deep water respond well to gradual exposure: small steps, "
        "repeated until they feel boring, with someone you trust nearby. There is no need "
        "to force it, and a therapist can guide the process if it limits your life.",
        "When you change your diet, plan the first two weeks of meals so you are not "
        "deciding when hungry. Protein, iron and vitamin B12 are the ones to watch when "
        "meat and fish leave the plate.",
        "Sleep is the quiet foundation of everything else: a fixed wake-up time, daylight "
        "in the morning, no screens in the last half hour, and a cool, dark bedroom help "
        "more than any supplement.",
        "Telling friends and hosts in advance avoids awkward moments. Most people are glad "
        "to adapt a menu or a plan when they know early, and it saves you from explaining "
        "at the table.",
    ),
    "books": (
        "Reading more is mostly about making it easy: a book on the bedside table, one on "
        "the phone for queues, and permission to abandon a book after fifty pages if it "
        "does not grab you.",
        "A book club or a reading buddy adds a gentle deadline and someone to talk to about "
        "the ending, which is half the pleasure of a good novel.",
        "If a genre works for you, follow the authors rather than the bestseller lists: "
        "look at who your favourite writers thank in their acknowledgements, or which "
        "books they recommend in interviews.",
        "Audiobooks count. A narrator can carry a dense book through a commute or a long "
        "walk, and many people finish more that way than on paper.",
        "Libraries are underrated: most lend e-books and audiobooks through an app, and a "
        "hold list is a free way to try a book before deciding whether to buy it.",
    ),
    "cooking": (
        "The most common reason a dish fails the first time is heat: ovens differ by twenty "
        "degrees or more, and pans hold heat differently. An oven thermometer costs little "
        "and removes most of the guesswork.",
        "Read the whole recipe twice before starting, and prepare every ingredient first: "
        "chopped, weighed and lined up. Cooking under time pressure is where things burn.",
        "For a celebration, cook something you have made at least once before, or do a "
        "small trial run a few days earlier. Guests remember the company more than the "
        "menu, and a relaxed host makes a better evening.",
        "Salt, acid and fat fix most bland dishes: a pinch of salt, a squeeze of lemon or "
        "a spoon of butter at the end. Taste as you go rather than only at the end.",
        "If something goes wrong, it can often be rescued: a collapsed cake becomes a "
        "trifle, broken pastry becomes a crumble topping, and an overcooked sauce can be "
        "loosened with a little stock.",
    ),
    "home": (
        "Before signing a lease, check the notice period, who pays for repairs, whether the "
        "deposit is protected, and the energy rating. Photograph every room on moving day "
        "and send the photos to the landlord so nobody argues about marks later.",
        "Unpack the kitchen and the bedroom first; everything else can live in boxes for a "
        "week. Label boxes by room and by priority, and keep one open box with the kettle, "
        "towels, chargers and toilet paper.",
        "Moving is a good moment to update your address with the bank, the doctor, your "
        "employer and any subscriptions, and to redirect post for a few months.",
        "A new neighbourhood feels like home faster once you have a routine: a bakery, a "
        "walking route, a cafe where they recognise you. Say hello to the neighbours in "
        "the first week, before it feels awkward.",
        "Small changes make a rented flat feel like yours without losing the deposit: "
        "plants, lamps instead of the ceiling light, rugs, and pictures hung with removable "
        "strips.",
    ),
    "running": (
        "After a long race, the first three days are for easy walking, water and sleep. "
        "Muscle soreness peaks around the second day; gentle movement helps more than "
        "stretching hard.",
        "Most training plans build for ten to sixteen weeks with one long run a week, one "
        "faster session and the rest easy. The easy runs should really be easy: you should "
        "be able to talk in full sentences.",
        "Shoes matter more than any gadget. Replace them after six to eight hundred "
        "kilometres, and try new ones on in the afternoon, when your feet are largest.",
        "On race day, nothing new: the same breakfast, the same socks, the same gels you "
        "trained with. Start slower than you want to; the second half is where a race is "
        "won or lost.",
        "Strength work twice a week, squats, lunges and calf raises, prevents more "
        "injuries than extra mileage and makes the last kilometres feel less heavy.",
    ),
    "events": (
        "A good wedding speech is short: three to five minutes, one story that shows who "
        "the person is, a warm word about their partner, and a toast. Practise it out "
        "loud until you can say it without reading every word.",
        "Start with who you are and how you know the couple, since half the room will not "
        "know you. Avoid inside jokes that need explaining and anything about exes.",
        "For travel to a family event, book early, check the dress code, and plan a "
        "quiet evening before it; weddings are long days and easier to enjoy rested.",
        "A thoughtful gift does not need to be expensive: something tied to what the "
        "person loves doing, a handwritten note, or an experience you share together is "
        "remembered longer than anything bought in a hurry.",
        "Nerves are normal. Breathe out slowly before you stand up, look at a friendly "
        "face, and remember that everyone in the room wants you to do well.",
    ),
    "money": (
        "A budget works when it is simple: what comes in, the fixed costs, what you want "
        "to save, and what is left to spend freely. Automate the saving on payday so it "
        "never depends on willpower at the end of the month.",
        "Keep an emergency fund of three to six months of expenses before investing, in "
        "an account you can reach within a day but do not see every time you open the "
        "banking app.",
        "Big purchases get easier with a separate savings pot per goal. Watching one pot "
        "fill up is more motivating than one large balance that seems never to change.",
        "Check subscriptions once a year: streaming, apps, gym memberships. Most people "
        "find a few they no longer use, and cancelling them pays for part of the goal.",
    ),
}

# What a user asks between the facts: (topic, the ask). {city} and {name} vary them.
SMALL_ASKS: tuple[tuple[str, str], ...] = (
    ("pets", "How often should a dog's nails be trimmed?"),
    ("pets", "My neighbour {name} asks if cats and dogs can share a water bowl. Can they?"),
    ("pets", "Is it normal for a dog to eat grass?"),
    ("travel", "What's the best way to beat jet lag after a long flight?"),
    ("travel", "My colleague {name} is flying to {city} next month. What should she pack?"),
    ("travel", "How early should I get to the airport for an international flight?"),
    ("work", "How do I write a polite email declining a meeting?"),
    ("work", "Any tips for a first week at a new job?"),
    ("work", "How should I prepare for a salary review?"),
    ("learning", "How long does it take to get decent at a new hobby?"),
    ("learning", "I keep giving up on new hobbies after a month. Why does that happen?"),
    ("health", "What helps with falling asleep faster?"),
    ("health", "Is it worth getting tested for allergies as an adult?"),
    ("books", "How can I read more when I'm always tired in the evening?"),
    ("books", "Are audiobooks as good as reading on paper?"),
    ("cooking", "Why does my bread always come out flat?"),
    ("cooking", "What can I cook for ten people without stress?"),
    ("home", "How do I get a security deposit back in full?"),
    ("home", "What should I check before renting a flat in {city}?"),
    ("running", "How often should I replace running shoes?"),
    ("running", "Is it bad to run every day?"),
    ("events", "How long should a toast at a birthday dinner be?"),
    ("events", "What's a good present for someone who has everything?"),
    ("money", "How much of my salary should I be saving?"),
    ("money", "Should I pay off debt or save first?"),
)

SESSION_OPENERS: tuple[str, ...] = (
    "Hi again! Quick question.",
    "Morning! I need some help with something.",
    "Hey, got a minute?",
    "Back again with another question, sorry!",
)
OPENER_REPLIES: tuple[str, ...] = (
    "Of course, happy to help. What's on your mind?",
    "Always. Go ahead, what do you need?",
    "No need to apologise! What can I do for you?",
)
SESSION_CLOSERS: tuple[str, ...] = (
    "Thanks, that's really helpful!",
    "Perfect, thank you. That's all for today.",
    "Great, I'll try that. Thanks!",
)
CLOSER_REPLIES: tuple[str, ...] = (
    "You're welcome! Come back any time.",
    "Glad it helped. Good luck, and let me know how it goes.",
    "Any time. Enjoy the rest of your day!",
)

# Hotels an assistant suggests for a work trip, and why.
HOTELS: tuple[str, ...] = (
    "the Alder House", "the Meridian Quay", "the Linden Court", "the Harbour Loft",
    "the Foundry Rooms", "the Juniper Inn", "the Granary Hotel", "the Blue Finch",
)  # fmt: skip

# (a goal a user saves for, how a question names it, the monthly sum an assistant advises)
SAVINGS: tuple[tuple[str, str, str], ...] = (
    ("a new car", "the car", "350 euros"),
    ("a deposit on a flat", "the flat deposit", "600 euros"),
    ("a trip to Japan next year", "the Japan trip", "220 euros"),
    ("a sabbatical", "the career break", "480 euros"),
    ("an electric bike", "the e-bike", "90 euros"),
    ("my wedding", "the wedding", "400 euros"),
)

# Practice routines an assistant proposes.
ROUTINES: tuple[str, ...] = (
    "fifteen minutes every morning before breakfast",
    "three sessions of twenty minutes a week",
    "one focused hour every Sunday afternoon",
    "ten minutes right after dinner every evening",
)

# Books an assistant recommends by genre: (genre asked for, title, author, what it is about)
RECOMMENDED_BOOKS: tuple[tuple[str, str, str, str], ...] = (
    ("historical fiction", "The Salt Orchard", "Mira Castell",
     "a fishing family losing everything when the harbour silts up"),
    ("science fiction", "Nine Small Moons", "Tobias Wren",
     "a crew stranded on an ice moon deciding who gets the last oxygen"),
    ("crime", "The Quiet Ledger", "Hal Brennan",
     "an accountant who finds a murder hidden in a company's spreadsheets"),
    ("romance", "A Map of Borrowed Rooms", "Lise Andrade",
     "two strangers who swap flats for a summer"),
    ("fantasy", "Iron and Thistle", "Duncan Moray",
     "a young blacksmith pulled into a war between clans of dragons"),
    ("adventure", "The Last Cartographer", "Ottilie Fenn",
     "an old mapmaker retracing her mentor's route across the Andes"),
)  # fmt: skip

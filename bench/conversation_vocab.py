"""Seeded vocabularies of the conversation benchmark: people, pets, places, jobs, hobbies, books.

Plain data only; `bench.conversation_facts` and `bench.conversations` turn it into dialogue.
"""

from __future__ import annotations

NAMES: tuple[str, ...] = (
    "Ana", "Ben", "Carla", "Dev", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas",
    "Kemal", "Lena", "Marco", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Samir", "Tessa",
    "Umar", "Vera", "Wes", "Yara", "Zane", "Bianca", "Cyril", "Dalia", "Emil", "Freya",
    "Gideon", "Hana", "Ivo", "Juno", "Kiran", "Lucia", "Mateo", "Noor", "Otto", "Pia",
)  # fmt: skip

PET_NAMES: tuple[str, ...] = (
    "Max", "Luna", "Biscuit", "Pepper", "Milo", "Olive", "Rocket", "Juniper", "Waffles",
    "Ziggy", "Mochi", "Pickles", "Hazel", "Otis", "Clover", "Bruno", "Tofu", "Nacho",
)  # fmt: skip

DOG_BREEDS: tuple[str, ...] = (
    "beagle", "corgi", "border collie", "greyhound", "dachshund", "labrador", "whippet",
    "shiba inu", "poodle", "husky", "boxer", "spaniel",
)  # fmt: skip

CAT_KINDS: tuple[str, ...] = ("tabby", "ginger", "Siamese", "ragdoll", "black", "tortoiseshell")

ADOPTION_NEWS: tuple[str, ...] = (
    "Big news on my side: we finally brought a puppy home from the shelter on Saturday!",
    "So, the flat isn't quiet anymore. We picked up a puppy from the rescue on Saturday.",
    "Guess who came home with a puppy on Saturday? Us!",
)

# (what the vet found, the answer in plain words)
VET_FINDINGS: tuple[tuple[str, str], ...] = (
    ("he needs surgery on his knee next Tuesday, the ligament is torn", "knee surgery"),
    ("two of his teeth have to come out, they booked him in for next Tuesday", "tooth removal"),
    ("he has to lose three kilos, strict diet and a weigh-in next Tuesday", "a weight-loss diet"),
    ("it's an ear infection, drops twice a day and a check-up next Tuesday", "an ear infection"),
    ("he cut his paw on glass, six stitches, and the cone stays on until next Tuesday", "stitches"),
    ("his hip is wearing out, so physio in the pool starting next Tuesday", "hip physiotherapy"),
)

PHOTO_SHOWN: tuple[str, ...] = (
    "Look at this photo I took last weekend!",
    "Okay, I have to show you this picture from last weekend.",
    "Sending you a shot from last weekend, tell me it's not gorgeous.",
)
PHOTO_ASKED: tuple[str, ...] = (
    "Wow, those colours! Where is that?",
    "That's unreal. Where were you?",
)

# (place, short name) of landmarks people photograph
LANDMARKS: tuple[tuple[str, str], ...] = (
    ("the lighthouse at Cape Mara", "Cape Mara"),
    ("the old stone bridge in Vellano", "Vellano"),
    ("the salt flats near Orvik", "Orvik"),
    ("the cliffs at Dunmore Head", "Dunmore Head"),
    ("the glasshouse in the Kessling botanical garden", "Kessling"),
    ("the harbour at Port Alder", "Port Alder"),
    ("the waterfall above Tesbury", "Tesbury"),
    ("the windmills of Hollendam", "Hollendam"),
    ("the ruined abbey at Carrow", "Carrow"),
    ("the red dunes outside Sazira", "Sazira"),
    ("the frozen lake at Vintermo", "Vintermo"),
    ("the tea terraces of Mount Ellery", "Mount Ellery"),
)

# (how it was said in the dialogue, how a question paraphrases it)
LIGHT: tuple[tuple[str, str], ...] = (
    ("at sunset", "as the sun went down"),
    ("in thick fog", "on a misty day"),
    ("under the first snow", "in wintry weather"),
    ("at dawn", "early in the morning"),
    ("during a thunderstorm", "in stormy weather"),
    ("under a full moon", "at night"),
)

CITIES: tuple[str, ...] = (
    "Lisbon", "Montreal", "Osaka", "Nairobi", "Krakow", "Denver", "Melbourne", "Helsinki",
    "Seoul", "Edinburgh", "Austin", "Porto", "Zurich", "Singapore", "Dublin", "Valencia",
    "Tallinn", "Cape Town", "Lyon", "Hamburg",
)  # fmt: skip

WORK_PURPOSES: tuple[str, ...] = (
    "a client workshop", "the trade fair", "an audit at the branch office",
    "the regional kick-off", "a supplier visit", "a two-day training",
)  # fmt: skip

# (what someone does, as said in the dialogue; the job in plain words; a topic they know)
JOBS: tuple[tuple[str, str, str], ...] = (
    ("doing night shifts on the children's ward", "paediatric nurse", "a toddler's fever"),
    ("fixing the booking software for the airline", "software developer", "a crashing laptop app"),
    ("teaching maths to teenagers", "secondary school teacher", "homework on fractions"),
    ("running the kitchen at a little bistro", "head chef", "a menu for a dinner party"),
    ("designing bridges and car parks", "civil engineer", "a crack in a garage ceiling"),
    ("managing the warehouse floor", "logistics manager", "shipping delays"),
    ("doing the books for local shops", "accountant", "a tax return"),
    ("editing the evening news bulletin", "news editor", "how a press release gets picked up"),
    ("planning bus routes for the city", "transport planner", "public transit timetables"),
    ("looking after the orchids at the botanical garden", "gardener", "a dying houseplant"),
    ("selling solar panels to farmers", "sales representative", "renewable power for a barn"),
    ("restoring old paintings for the museum", "art conservator", "a damaged oil portrait"),
)

COMPANIES: tuple[str, ...] = (
    "Brightwater Logistics", "Halden Labs", "Northwind Health", "Pellucid Media",
    "Ostrander & Kay", "Bluefern Energy", "Cobalt Rail", "Marrow Street Bakery",
    "Quillon Software", "Ardent Insurance", "Tidewell Foods", "the city council",
)  # fmt: skip

# (the course, first impression, later progress, a paraphrase of the activity, a gift idea)
HOBBIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("a pottery course at the community studio", "My first bowl collapsed but I loved it.",
     "I made a set of mugs on the wheel this week, only one is wonky.",
     "working with clay", "sculpting tools or a studio voucher"),
    ("salsa lessons downtown", "My feet hurt, but the music is so good.",
     "We learned a new turn pattern and I didn't step on a single toe.",
     "Latin dancing", "dance shoes or tickets to a dance show"),
    ("a beginners' course at the bouldering gym", "My forearms are dead, I can't open jars.",
     "I finally topped the purple route on the overhang wall!",
     "indoor climbing", "climbing shoes or a chalk bag"),
    ("an evening class in watercolour", "Everything I paint turns into brown puddles.",
     "I painted the view from my balcony and framed it, I'm weirdly proud.",
     "painting", "good brushes and a pad of cotton paper"),
    ("Japanese lessons at the language school", "Three alphabets, what was I thinking.",
     "I ordered lunch in Japanese from the noodle place and the owner clapped.",
     "studying a foreign language", "a graded reader or a trip to Japan"),
    ("a sourdough workshop at the bakery", "My starter is alive, I named it Gerald.",
     "The last loaf had a proper crust and big holes, finally.",
     "baking bread", "a proofing basket or a Dutch oven"),
    ("guitar lessons with my neighbour", "My fingertips are so sore, steel strings are evil.",
     "I can play the whole intro of a Beatles song now without looking.",
     "playing a string instrument", "a capo and a new set of strings"),
    ("a beekeeping course on a farm", "I got stung once and still loved every minute.",
     "We harvested our first frames of honey on Sunday, it's so dark and sweet.",
     "keeping bees", "a proper bee suit or honey jars"),
    ("a woodworking night class", "I made a wobbly stool, but it's MY wobbly stool.",
     "I finished a little walnut side table, with real dovetail joints.",
     "carpentry", "a good chisel set"),
    ("a choir that rehearses in the old church", "I'm an alto apparently, who knew.",
     "We sang our first concert and I only lost my place once.",
     "singing in a group", "concert tickets or singing lessons"),
)  # fmt: skip

# (what the person says, an open question, the inferred answer)
CONSTRAINTS: tuple[tuple[str, str, str], ...] = (
    ("I had to leave {friend}'s party early, she has two cats and my eyes swelled shut",
     "Would a kitten be a good surprise present for {who}?", "no: allergic to cats"),
    ("as soon as the trees bloom I'm sneezing all day and living on my inhaler",
     "Is a bunch of fresh flowers a good get-well gift for {who}?", "no: pollen allergy"),
    ("I have to read every label, one peanut and I end up in hospital",
     "Which snack should nobody ever bring {who}?", "anything with peanuts"),
    ("last time I ate prawns my whole face swelled up, never again",
     "Would a seafood platter suit {who}'s birthday dinner?", "no: shellfish allergy"),
    ("I got three steps up the lookout tower and had to come down, my knees were shaking",
     "Would {who} enjoy a cable-car ride to a mountain summit?", "no: afraid of heights"),
    ("I never go in past my waist, not since I nearly drowned as a kid",
     "Would a snorkelling holiday appeal to {who}?", "no: afraid of deep water"),
    ("I'm taking the train again, I can't face another flight after that turbulence",
     "How would {who} probably prefer to reach a conference abroad?", "by train, not plane"),
    ("it's been four months since I last ate meat or fish and I don't miss it",
     "Is a steakhouse a good place to take {who} out?", "no: vegetarian"),
    ("the festival was a nightmare, too many people, I left after an hour",
     "Would {who} like to spend New Year's Eve at the big street party?", "no: hates crowds"),
)  # fmt: skip

# (title, author, what it is about, genre)
BOOKS: tuple[tuple[str, str, str, str], ...] = (
    ("The Salt Orchard", "Mira Castell",
     "a fishing family in the 1800s losing everything when the harbour silts up",
     "historical fiction"),
    ("Nine Small Moons", "Tobias Wren",
     "a crew stranded on an ice moon deciding who gets the last oxygen", "science fiction"),
    ("The Quiet Ledger", "Hal Brennan",
     "an accountant who finds a murder hidden in a company's spreadsheets", "crime thriller"),
    ("A Map of Borrowed Rooms", "Lise Andrade",
     "two strangers who swap flats for a summer and fall for each other's lives", "romance"),
    ("Iron and Thistle", "Duncan Moray",
     "a young blacksmith pulled into a war between clans of dragons", "fantasy"),
    ("The Last Cartographer", "Ottilie Fenn",
     "an old mapmaker retracing her mentor's route across the Andes", "adventure"),
    ("Glass Weather", "Ren Takeda",
     "a meteorologist whose forecasts start coming true a week early", "speculative fiction"),
    ("The Hollow Choir", "Agnes Pryce",
     "a village where the church bells ring by themselves every night", "horror"),
)  # fmt: skip

# (relation, how a question names it)
RELATIVES: tuple[tuple[str, str], ...] = (
    ("sister", "sibling"), ("brother", "sibling"), ("cousin", "relative"),
    ("best friend from school", "oldest friend"), ("niece", "relative"),
)  # fmt: skip

# (dish, disaster)
DISHES: tuple[tuple[str, str], ...] = (
    ("a lemon meringue pie", "the meringue slid off like a wet hat"),
    ("homemade ramen", "the broth tasted like dishwater"),
    ("beef wellington", "the pastry was burnt and the middle was raw"),
    ("paella", "the rice welded itself to the pan"),
    ("a three-layer chocolate cake", "the whole tower collapsed sideways"),
    ("pierogi", "half of them burst open in the water"),
    ("a cheese souffle", "it sank the second the oven door opened"),
    ("fresh pasta", "it turned into one giant sticky lump"),
)

# (neighbourhood, favourite feature of the new home)
HOMES: tuple[tuple[str, str], ...] = (
    ("Millbrook", "the bay window in the kitchen"),
    ("the Old Docks", "the roof terrace"),
    ("Ashgrove", "the little garden with an apple tree"),
    ("Riverside", "the view over the water from the bedroom"),
    ("Kingsfield", "the fireplace in the living room"),
    ("Larkhill", "the huge bathtub"),
)

FINISH_TIMES: tuple[str, ...] = ("1:52", "2:04", "1:47", "2:15", "1:58", "2:21")

# Small talk: said by whoever's turn it is. {other} is the listener, {name} a third person.
SMALL_TALK: tuple[str, ...] = (
    "How was your week, {other}?",
    "Honestly, work has been a blur. I need a holiday.",
    "Did you watch the match on {weekday}? What a finish.",
    "The weather is so grey here, it hasn't stopped raining since {weekday}.",
    "I had the best {food} at that new place near the station.",
    "{name} says hi, by the way.",
    "Haha, that's so typical.",
    "Oh no, really? That sounds stressful.",
    "Same here, to be honest.",
    "I'm so tired today, I slept maybe five hours.",
    "Have you started that series everyone is talking about?",
    "My boss keeps saying we'll travel more next year. We'll see.",
    "I saw {name}'s photos from the weekend, looked like fun.",
    "The neighbour's dog barked all night again.",
    "Coffee first, then I'm a person.",
    "I keep meaning to read more, but I fall asleep after two pages.",
    "We should get {food} together sometime soon.",
    "Traffic was terrible this morning, forty minutes for a ten-minute drive.",
    "Lol yes.",
    "That's lovely to hear.",
    "I've been thinking about visiting {city} one day.",
    "My phone screen cracked again, third time this year.",
    "Is it just me or is everything more expensive lately?",
    "I cleaned the whole flat on {weekday}, very proud of myself.",
    "{name} is organising a quiz night, are you in?",
    "I might repaint the kitchen, something green maybe.",
    "Fair enough.",
    "Wait, really? Tell me more.",
    "I tried a new recipe with {food}, it was fine, nothing special.",
    "My mum called for an hour about the garden again.",
    "I need new running shoes, mine have holes.",
    "Did you hear {name} got a new job? Or maybe I misheard.",
    "We had a power cut on {weekday}, candles and board games.",
    "I'm trying to drink less coffee. It's not going well.",
    "Sounds like a plan.",
    "Ugh, Mondays.",
    "The vet near my parents' place closed down, apparently.",
    "I printed some old holiday pictures for the hallway.",
    "Someone at work brought cake for no reason, best day.",
    "I'm thinking about getting a plant. A hard-to-kill one.",
)

GREETINGS: tuple[str, ...] = (
    "Hey {other}! It's been a while.",
    "Hi {other}, how are things?",
    "Morning {other}! Got a minute?",
    "{other}! Finally, I've been meaning to message you.",
)

GOODBYES: tuple[str, ...] = (
    "Okay, I have to run. Talk soon!",
    "Anyway, dinner's ready. Speak soon, {other}.",
    "Let's catch up again in a few weeks.",
    "Good talking to you, take care!",
)

FOODS: tuple[str, ...] = (
    "ramen", "tacos", "dumplings", "pizza", "curry", "falafel", "sushi", "pho", "burgers",
)  # fmt: skip

WEEKDAYS: tuple[str, ...] = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip

"""Seeded memory tasks in the shape of BFCL's: earlier conversations that tell facts, then a question.

Each task is one made-up user: two earlier conversations (BFCL's prerequisite conversations),
each of a few user turns that mix small talk with personal facts (name, city, a pet, work,
siblings, a food, an appointment, an allergy), and a question about one fact. Some facts change
in the second conversation (the user moved, or the appointment was moved), so only the later
value answers the question. Every question has its acceptable answers, as BFCL's possible
answers have (a count is accepted as digits or as a word). The same seed gives the same tasks.
"""

from __future__ import annotations

import random

SCENARIOS = ("student", "customer", "finance", "healthcare", "notetaker")
FIRST_NAMES = ["Amara", "Bruno", "Chiara", "Dmitri", "Esther", "Farid", "Greta", "Hiroshi", "Ines", "Jonas",
               "Keiko", "Lorenzo", "Maren", "Nikhil", "Olga", "Pavel"]
CITIES = ["Lisbon", "Toronto", "Nairobi", "Kraków", "Osaka", "Valparaíso", "Tallinn", "Adelaide", "Marrakesh",
          "Reykjavik"]
PETS = [("dog", ["Biscuit", "Pepper", "Rocket", "Mochi"]), ("cat", ["Saffron", "Pixel", "Tofu", "Juniper"]),
        ("parrot", ["Kiwi", "Captain", "Mango"])]
JOBS = ["pediatric nurse", "structural engineer", "bakery owner", "high-school chemistry teacher", "court interpreter",
        "wildlife photographer", "tax accountant"]
FOODS = ["mushroom risotto", "green curry", "shakshuka", "pierogi", "pho", "paella", "falafel wraps"]
ALLERGIES = ["penicillin", "peanuts", "shellfish", "latex", "bee stings"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six"]
SMALL_TALK = [
    "Thanks for making time for me today; it has been a busy week.",
    "Sorry if I ramble a bit, I just got back from a long walk.",
    "The weather here has been all over the place lately.",
    "I finally finished the book I was reading, which feels great.",
    "I'm trying to get more organised this year, so bear with me.",
    "Coffee is kicking in now, so let's get going.",
]
#: The question kinds, in the order tasks cycle through them.
KINDS = ("name", "city", "pet", "job", "siblings", "food", "appointment", "allergy", "moved", "rescheduled")
TASKS_PER_BACKEND = 12


def _persona(rng: random.Random) -> dict:
    species, names = rng.choice(PETS)
    old_city, city = rng.sample(CITIES, 2)
    old_day, day = rng.sample(DAYS, 2)
    return {"name": rng.choice(FIRST_NAMES), "city": city, "old_city": old_city, "species": species,
            "pet": rng.choice(names), "job": rng.choice(JOBS), "siblings": rng.randint(0, 6),
            "food": rng.choice(FOODS), "day": day, "old_day": old_day, "allergy": rng.choice(ALLERGIES)}


def _question(kind: str, p: dict) -> tuple[str, list[str]]:
    """The question and its acceptable answers."""
    siblings = p["siblings"]
    return {
        "name": ("What is my first name?", [p["name"]]),
        "city": ("Which city do I live in?", [p["city"]]),
        "moved": ("Which city do I live in now?", [p["city"]]),
        "pet": (f"What is the name of my {p['species']}?", [p["pet"]]),
        "job": ("What do I do for a living?", [p["job"]]),
        "siblings": ("How many siblings do I have? Give the number.", [str(siblings), NUMBER_WORDS[siblings]]),
        "food": ("What is my favourite dish?", [p["food"]]),
        "appointment": ("On which day of the week is my dentist appointment?", [p["day"]]),
        "rescheduled": ("On which day of the week is my dentist appointment now?", [p["day"]]),
        "allergy": ("What am I allergic to?", [p["allergy"]]),
    }[kind]


def _conversations(rng: random.Random, p: dict, kind: str) -> list[list[str]]:
    """Two earlier conversations as their user turns; a moved fact is told twice, old then new."""
    moved, rescheduled = kind == "moved", kind == "rescheduled"
    first = [
        f"Hi! I'm {p['name']}. {rng.choice(SMALL_TALK)}",
        f"I live in {p['old_city'] if moved else p['city']} and work as a {p['job']}.",
        f"At home it's me and my {p['species']}, {p['pet']}. I have {NUMBER_WORDS[p['siblings']]} "
        f"sibling{'s' if p['siblings'] != 1 else ''}, who all live far away.",
        f"My dentist appointment is on {p['old_day'] if rescheduled else p['day']} this week, "
        f"which I keep forgetting.",
    ]
    second = [
        f"Hello again, it's {p['name']}. {rng.choice(SMALL_TALK)}",
        f"Something I should have said: I'm allergic to {p['allergy']}, so please keep that in mind.",
        f"My favourite dish is {p['food']}; I cook it every Sunday.",
    ]
    if moved:
        second.insert(1, f"Big news: I moved out of {p['old_city']} last month and now live in {p['city']}.")
    if rescheduled:
        second.insert(2, f"The dentist called: my appointment moved from {p['old_day']} to {p['day']}.")
    rng.shuffle(first[1:])  # the greeting stays first; the facts come in any order
    return [first, second]


def generate_memory_tasks(seed: int, backends: tuple[str, ...] = ("kv", "vector", "rec_sum"),
                          per_backend: int = TASKS_PER_BACKEND) -> list[dict]:
    """The built-in memory tasks for ``seed``, BFCL-shaped, with their acceptable answers."""
    tasks = []
    for backend in backends:
        category = f"memory_{backend}"
        for index in range(per_backend):
            rng = random.Random(f"bfcl-memory-{seed}-{backend}-{index}")
            persona = _persona(rng)
            kind = KINDS[index % len(KINDS)]
            scenario = SCENARIOS[index % len(SCENARIOS)]
            question, answers = _question(kind, persona)
            prereq = [{"id": f"{category}_prereq_{index}-{scenario}-{n}", "topic": f"conversation {n + 1}",
                       "question": [[{"role": "user", "content": text}] for text in turns]}
                      for n, turns in enumerate(_conversations(rng, persona, kind))]
            tasks.append({"id": f"{category}_{index}-{scenario}-{index}", "category": category, "backend": backend,
                          "scenario": scenario, "prereq": prereq,
                          "question": [{"role": "user", "content": question}], "ground_truth": answers,
                          "source": None})
    return tasks

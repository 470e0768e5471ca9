"""The built-in ToolTalk task set: a seeded world and conversations generated over it.

Conversations are written by templates, like the paper's (easy: one per tool, a few turns,
one call; hard: several plugins, at least three calls, calls that need an earlier call's
result, and turns where the user has not yet given what the call needs). A
:class:`ConversationBuilder` executes every ground-truth call while the conversation is
written, so the stated responses are, by construction, what the calls return.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from collections.abc import Callable

from faker import Faker
from sqlalchemy import insert, select

from toolgym.worlds.tooltalk.data_model import (
    Account, Alarm, DailyWeather, Email, Event, Message, MonthlyWeather, Reminder,
)
from toolgym.worlds.tooltalk.tools import TIME_FORMAT, ToolTalkTools
from toolgym.worlds.tooltalk.world import ToolTalkWorld

CITIES = ["New York", "London", "Tokyo", "Paris", "San Francisco", "Seattle", "Berlin", "Sydney",
          "Toronto", "Chicago"]
CONDITIONS = ["Sunny", "Partly Cloudy", "Cloudy", "Mostly Cloudy", "30% Rainy", "60% Rainy",
              "80% Rainy", "Stormy", "Windy", "Foggy"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
FIRST_DAY, LAST_DAY = date(2023, 9, 1), date(2023, 10, 31)
EVENT_NAMES = ["Team sync", "Project review", "Dentist appointment", "Budget planning", "Design critique",
               "Quarterly planning", "Yoga class", "Book club", "Client call", "Code review",
               "Doctor's appointment", "Parent-teacher conference", "Interview", "Hackathon kickoff"]
LOCATIONS = ["Conference Room 1", "Conference Room 2", "Main Street Clinic", "Cafe Luna", "online",
             "Library", "Community Center", "Room 204"]
TASKS = ["Buy groceries", "Call mom", "Pay the electricity bill", "Renew passport", "Water the plants",
         "Book flights", "Finish the quarterly report", "Schedule a haircut", "Return library books",
         "Pick up dry cleaning", "Send birthday card", "Clean the garage"]
TOPICS = [("Quarterly report", "the quarterly report draft is ready for your review"),
          ("Team offsite", "we are planning the team offsite for next month"),
          ("Invoice", "please find the invoice for last month attached"),
          ("Conference talk", "your talk at the conference has been accepted"),
          ("Lunch plans", "would you like to get lunch this week"),
          ("Project kickoff", "the project kickoff is scheduled for next week"),
          ("Apartment lease", "your apartment lease renewal is due soon")]
CHATS = ["Are we still on for dinner tonight?", "Can you send me the slides from yesterday?",
         "Running a bit late, be there in 10 minutes.", "Happy birthday! Hope you have a great day.",
         "Did you finish the budget spreadsheet?", "Let's go hiking this weekend.",
         "The movie starts at 8, don't be late.", "Thanks for the help with the move!"]
PASSWORDS = ["Sunflower42!", "BlueOcean#7", "Maple_Leaf99", "QuietRiver88", "Orbit-2023x", "GreenTea$15"]


def hex_id(rng: random.Random, *widths: int) -> str:
    return "-".join(f"{rng.randint(0, 16 ** w - 1):0{w}x}" for w in widths)


def clock12(hhmmss: str) -> str:
    t = datetime.strptime(hhmmss, "%H:%M:%S")
    return t.strftime("%I:%M %p").lstrip("0")


def generate_world(seed: int) -> ToolTalkWorld:
    """A seeded world: users with alarms, calendars, mail, messages and reminders; weather."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    world = ToolTalkWorld(seed=seed)
    rows: dict[type, list[dict]] = {}

    def add(model: type, **values) -> None:
        rows.setdefault(model, []).append(values)

    usernames: list[str] = []
    while len(usernames) < 16:
        name = fake.unique.user_name()
        if name.isalnum():
            usernames.append(name.lower())
    people = {}
    for username in usernames:
        first, last = fake.first_name(), fake.last_name()
        email = f"{first.lower()}.{last.lower()}@{rng.choice(['gmail.com', 'fmail.com', 'somail.com', 'gahoo.com'])}"
        people[username] = (f"{first} {last}", email)
        add(Account, username=username, password=rng.choice(PASSWORDS) + str(rng.randint(1, 99)), email=email,
            phone=fake.numerify("###-###-####"), name=f"{first} {last}")
    for username in usernames:
        for _ in range(rng.randint(2, 4)):
            add(Alarm, owner=username, alarm_id=hex_id(rng, 4, 4),
                time=f"{rng.randint(5, 22):02d}:{rng.choice([0, 15, 30, 45]):02d}:00")
        for _ in range(rng.randint(5, 8)):
            day = date(2023, 9, 8) + timedelta(days=rng.randint(0, 30))
            start = datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.randint(8, 18),
                                                                          minutes=rng.choice([0, 30]))
            end = start + timedelta(minutes=rng.choice([30, 60, 90]))
            meeting = rng.random() < 0.6
            attendees = sorted({username, *rng.sample(usernames, rng.randint(1, 3))}) if meeting else None
            add(Event, owner=username, event_id=hex_id(rng, 8, 4), name=rng.choice(EVENT_NAMES),
                event_type="meeting" if meeting else "event", start_time=start.strftime(TIME_FORMAT),
                end_time=end.strftime(TIME_FORMAT), location=rng.choice(LOCATIONS + [None]),
                description=fake.sentence(nb_words=8), attendees=attendees)
        for _ in range(rng.randint(3, 6)):
            sender = rng.choice([u for u in usernames if u != username])
            subject, body = rng.choice(TOPICS)
            when = datetime(2023, 9, 1, 8) + timedelta(hours=rng.randint(0, 24 * 9))
            add(Email, owner=username, email_id=hex_id(rng, 2, 4, 8), date=when.strftime(TIME_FORMAT),
                sender=people[sender][1], receivers=[people[username][1]], subject=subject,
                body=f"Hi {people[username][0].split()[0]}, {body}. Best, {people[sender][0].split()[0]}")
        for _ in range(rng.randint(3, 6)):
            when = datetime(2023, 9, 1, 8) + timedelta(hours=rng.randint(0, 24 * 9), minutes=rng.randint(0, 59))
            add(Message, owner=username, message_id=hex_id(rng, 8, 8), timestamp=when.strftime(TIME_FORMAT),
                sender=rng.choice([u for u in usernames if u != username]), message=rng.choice(CHATS))
        for task in rng.sample(TASKS, rng.randint(2, 4)):
            due = None if rng.random() < 0.3 else (datetime(2023, 9, 10) + timedelta(days=rng.randint(0, 20))).strftime(TIME_FORMAT)
            add(Reminder, owner=username, reminder_id=hex_id(rng, 2, 4), task=task, due_date=due,
                status=rng.choice(["pending", "pending", "complete"]))
    for city in CITIES:
        base = rng.randint(45, 80)
        day = FIRST_DAY
        while day <= LAST_DAY:
            high = base + rng.randint(-6, 8)
            add(DailyWeather, location=city.lower(), date=day.isoformat(), high=high,
                low=high - rng.randint(6, 16), conditions=rng.choice(CONDITIONS))
            day += timedelta(days=1)
        for i, month in enumerate(MONTHS):
            mid = base - 20 + 30 * (1 - abs(i - 6) / 6)
            low, high = round(mid - rng.randint(4, 9)), round(mid + rng.randint(4, 9))
            add(MonthlyWeather, location=city.lower(), month=month, min_temp=low, max_temp=high,
                record_min_temp=low - rng.randint(10, 20), record_max_temp=high + rng.randint(10, 20),
                avg_rainfall=round(rng.uniform(0.5, 5.0), 2), snow_days=max(0, rng.randint(-8, 6) if mid < 45 else 0))
    for model, values in rows.items():
        world.session.execute(insert(model), values)
    world.session.commit()
    return world


class GenerationError(RuntimeError):
    """A template produced a call that does not behave as the template meant: a generator bug."""


class ConversationBuilder:
    """Writes one conversation while executing its ground-truth calls in a scratch world."""

    def __init__(self, world: ToolTalkWorld, name: str, rng: random.Random, logged_in: bool = True,
                 username: str | None = None, location: str | None = None):
        self.world, self.rng, self.name = world, rng, name
        accounts = world.session.scalars(select(Account).order_by(Account.pk)).all()
        self.account = next(a for a in accounts if a.username == username) if username else rng.choice(accounts)
        self.others = [a for a in accounts if a.username != self.account.username]
        self.now = datetime(2023, 9, 11, 9) + timedelta(days=rng.randint(0, 14), hours=rng.randint(0, 8))
        self.location = location or rng.choice(CITIES)
        self.user_data = {"username": self.account.username, "email": self.account.email,
                          "phone": self.account.phone, "name": self.account.name,
                          "password": self.account.password}
        self.metadata = {"location": self.location, "timestamp": self.now.strftime(TIME_FORMAT)}
        if logged_in:
            token = hex_id(rng, 8, 4, 4)
            self.user_data["session_token"] = self.metadata["session_token"] = token
            self.metadata["username"] = self.account.username
        self.turns: list[dict] = []
        self.apis_used: list[str] = []
        world.begin_conversation(self.metadata, self.user_data)

    def user(self, text: str) -> None:
        self.turns.append({"index": len(self.turns), "role": "user", "text": text})

    def assistant(self, text: str, calls: list[tuple[str, dict]] = (), expect_error: bool = False) -> list:
        """Add an assistant turn whose ground-truth calls run now; returns their responses."""
        apis, responses = [], []
        for name, arguments in calls:
            result = self.world.execute(name, arguments)
            if (result.error is not None) != expect_error:
                raise GenerationError(f"{self.name}: {name}({arguments}) -> {result.error}")
            request = dict(result.arguments)
            apis.append({"request": {"api_name": name, "parameters": request},
                         "response": result.response, "exception": result.error})
            responses.append(result.response)
            self.apis_used.append(name)
        turn = {"index": len(self.turns), "role": "assistant", "text": text}
        if apis:
            turn["apis"] = apis
        self.turns.append(turn)
        return responses

    def build(self) -> dict:
        specs = ToolTalkTools.specs
        return {"name": self.name, "conversation_id": self.name, "apis_used": sorted(set(self.apis_used)),
                "suites_used": sorted({specs[n].app for n in self.apis_used}),
                "scenario": "generated by toolgym", "user": self.user_data, "metadata": self.metadata,
                "conversation": self.turns}

    # -- facts the templates may use ---------------------------------------------------------
    def rows(self, model, **where):
        # populate_existing: the tools write with plain SQL, which rows loaded earlier do not see
        q = select(model).filter_by(**where).order_by(model.pk).execution_options(populate_existing=True)
        return self.world.session.scalars(q).all()

    def mine(self, model):
        return self.rows(model, owner=self.account.username)

    def future_slot(self, days: int = 1, hour: int | None = None, minutes: int = 60) -> tuple[str, str]:
        start = datetime.combine(self.now.date() + timedelta(days=days), datetime.min.time())
        start += timedelta(hours=hour if hour is not None else self.rng.randint(9, 16))
        return start.strftime(TIME_FORMAT), (start + timedelta(minutes=minutes)).strftime(TIME_FORMAT)

    def time(self) -> str:
        return f"{self.rng.randint(5, 21):02d}:{self.rng.choice([0, 15, 30, 45]):02d}:00"

    def pretty_day(self, when: str) -> str:
        return datetime.strptime(when, TIME_FORMAT).strftime("%A, %B %d at %I:%M %p").replace(" 0", " ")


Template = Callable[[ConversationBuilder], None]


# -- easy: one template per tool, one call ---------------------------------------------------
def easy_add_alarm(b):
    t = b.time()
    b.user(f"Can you set an alarm for {clock12(t)}?")
    b.assistant(f"Your alarm for {clock12(t)} is set.", [("AddAlarm", {"time": t})])
    b.user("Thanks!")


def easy_delete_alarm(b):
    alarm = b.rng.choice(b.mine(Alarm))
    b.user(f"Please delete my alarm with id {alarm.alarm_id}.")
    b.assistant("I deleted that alarm.", [("DeleteAlarm", {"alarm_id": alarm.alarm_id})])
    b.user("Great, thank you.")


def easy_find_alarms(b):
    b.user("Which alarms do I have in the morning, between 5 and 11 am?")
    (res,) = b.assistant("Here are your morning alarms.",
                         [("FindAlarms", {"start_range": "05:00:00", "end_range": "11:00:00"})])
    b.user("Ok, good to know.")


def easy_change_password(b):
    new = b.rng.choice(PASSWORDS) + "x"
    b.user("I'd like to change my password.")
    b.assistant("Sure. What is your current password?")
    b.user(f"It's {b.account.password}.")
    b.assistant("And what should the new password be?")
    b.user(f"Make it {new}")
    b.assistant("Your password has been changed.",
                [("ChangePassword", {"old_password": b.account.password, "new_password": new})])
    b.user("Thanks.")


def easy_delete_account(b):
    b.user("Please delete my account, I don't use it anymore.")
    b.assistant("I can do that. Please confirm your password.")
    b.user(f"My password is {b.account.password}")
    b.assistant("Your account has been deleted.", [("DeleteAccount", {"password": b.account.password})])
    b.user("Ok, bye.")


def easy_get_account_information(b):
    b.user("What phone number is on my account?")
    (res,) = b.assistant("", [("GetAccountInformation", {})])
    b.turns[-1]["text"] = f"The phone number on your account is {res['user']['phone']}."
    b.user("Perfect.")


def easy_logout_user(b):
    b.user("Can you log me out?")
    b.assistant("You are now logged out.", [("LogoutUser", {})])
    b.user("Thanks!")


def easy_query_user(b):
    other = b.rng.choice(b.others)
    b.user("Can you check whether a user exists?")
    b.assistant("Sure, what is their username?")
    b.user(f"It's {other.username}.")
    b.assistant(f"Yes, {other.username} exists: {other.name}.", [("QueryUser", {"username": other.username})])
    b.user("Great.")


def easy_register_user(b):
    first = b.rng.choice(["Ava", "Liam", "Mia", "Noah", "Zoe", "Ethan"])
    username = f"{first.lower()}{b.rng.randint(100, 999)}"
    email, phone = f"{username}@fmail.com", f"{b.rng.randint(200, 999)}-555-{b.rng.randint(1000, 9999)}"
    password = b.rng.choice(PASSWORDS)
    b.user("I want to create an account.")
    b.assistant("Happy to help. Which username and password would you like?")
    b.user(f"Username {username}, password {password}.")
    b.assistant("What email address should I use?")
    b.user(f"{email}. My name is {first} Park and my phone is {phone}.")
    b.assistant("Your account is created and you are logged in.",
                [("RegisterUser", {"username": username, "password": password, "email": email,
                                   "name": f"{first} Park", "phone": phone})])
    b.user("Awesome.")


def easy_reset_password(b):
    code = f"{b.rng.randint(0, 999999):06d}"
    b.user_data["verification_code"] = code
    b.world.begin_conversation(b.metadata, b.user_data)
    new = b.rng.choice(PASSWORDS) + "!"
    b.user(f"I got a verification code, {code}. Please reset my password.")
    b.assistant("What is your username, and what should the new password be?")
    b.user(f"Username {b.account.username}, new password {new}")
    b.assistant("Your password has been reset.", [("ResetPassword", {
        "username": b.account.username, "verification_code": code, "new_password": new})])
    b.user("Thank you!")


def easy_send_verification_code(b):
    b.user("I forgot my password. Can you help?")
    b.assistant("I can send you a verification code. What are your username and email?")
    b.user(f"{b.account.username}, and my email is {b.account.email}")
    b.assistant("I sent a verification code to your email.", [("SendVerificationCode", {
        "username": b.account.username, "email": b.account.email})])
    b.user("Got it.")


def easy_update_account_information(b):
    phone = f"{b.rng.randint(200, 999)}-{b.rng.randint(200, 999)}-{b.rng.randint(1000, 9999)}"
    b.user(f"My phone number changed to {phone}, please update my account.")
    b.assistant("I need your password to change account details.")
    b.user(f"It's {b.account.password}")
    b.assistant("Your phone number is updated.", [("UpdateAccountInformation", {
        "password": b.account.password, "new_phone_number": phone})])
    b.user("Thanks.")


def easy_user_login(b):
    b.user("Log me in please.")
    b.assistant("What is your username?")
    b.user(b.account.username)
    b.assistant("And your password?")
    b.user(b.account.password)
    b.assistant("You are logged in.", [("UserLogin", {"username": b.account.username, "password": b.account.password})])
    b.user("Thanks!")


def easy_create_event(b):
    start, end = b.future_slot(days=b.rng.randint(1, 6))
    name = b.rng.choice(["Haircut", "Piano lesson", "Gym session", "Car service", "Vet visit"])
    b.user(f"Add a {name.lower()} to my calendar on {b.pretty_day(start)} for an hour.")
    b.assistant(f"I added {name} to your calendar.", [("CreateEvent", {
        "name": name, "event_type": "event", "start_time": start, "end_time": end})])
    b.user("Thanks.")


def easy_delete_event(b):
    event = b.rng.choice(b.mine(Event))
    b.user(f"I can't make event {event.event_id} anymore, please delete it.")
    b.assistant("The event is deleted.", [("DeleteEvent", {"event_id": event.event_id})])
    b.user("Thank you.")


def easy_modify_event(b):
    event = b.rng.choice(b.mine(Event))
    place = b.rng.choice(["Conference Room 3", "Cafe Aroma", "Building B lobby"])
    b.user(f"Please change the location of event {event.event_id} to {place}.")
    b.assistant("Done, the location is updated.", [("ModifyEvent", {"event_id": event.event_id, "new_location": place})])
    b.user("Great.")


def easy_query_calendar(b):
    day = b.now.date() + timedelta(days=1)
    b.user("What do I have on my calendar tomorrow?")
    b.assistant("Here is what is on your calendar tomorrow.", [("QueryCalendar", {
        "start_time": f"{day} 00:00:00", "end_time": f"{day} 23:59:59"})])
    b.user("Thanks.")


def easy_search_inbox(b):
    email = b.rng.choice([e for e in b.mine(Email) if e.date <= b.now.strftime(TIME_FORMAT)])
    b.user(f"Find the email from {email.sender} about the {email.subject.lower()}.")
    b.assistant(f"I found it: \"{email.subject}\".", [("SearchInbox", {
        "query": email.subject.lower(), "sender": email.sender})])
    b.user("Thanks.")


def easy_send_email(b):
    other = b.rng.choice(b.others)
    subject, body = b.rng.choice(TOPICS)
    b.user("Can you send an email for me?")
    b.assistant("Sure, who should receive it?")
    b.user(f"{other.email}")
    b.assistant("What should the subject and the message be?")
    b.user(f"Subject '{subject}', and say: {body}.")
    b.assistant("Your email has been sent.", [("SendEmail", {"to": [other.email], "subject": subject,
                                                               "body": body[0].upper() + body[1:] + "."})])
    b.user("Thanks!")


def easy_search_messages(b):
    message = b.rng.choice([m for m in b.mine(Message) if m.timestamp <= b.now.strftime(TIME_FORMAT)])
    b.user(f"Did {message.sender} send me any messages?")
    b.assistant(f"Yes, the latest one says: \"{message.message}\"", [("SearchMessages", {"sender": message.sender})])
    b.user("Ok.")


def easy_send_message(b):
    other = b.rng.choice(b.others)
    text = b.rng.choice(CHATS)
    b.user(f"Send a message to {other.username}.")
    b.assistant("What would you like to say?")
    b.user(f"Tell them: {text}")
    b.assistant("Message sent.", [("SendMessage", {"receiver": other.username, "message": text})])
    b.user("Thanks.")


def easy_add_reminder(b):
    task = b.rng.choice(TASKS)
    due, _ = b.future_slot(days=b.rng.randint(1, 5), hour=18)
    b.user(f"Remind me to {task.lower()} by {b.pretty_day(due)}.")
    b.assistant("Reminder added.", [("AddReminder", {"task": task, "due_date": due})])
    b.user("Thanks.")


def easy_complete_reminder(b):
    reminder = b.rng.choice([r for r in b.mine(Reminder) if r.status == "pending"])
    b.user(f"Mark reminder {reminder.reminder_id} as done.")
    b.assistant("It is marked complete.", [("CompleteReminder", {"reminder_id": reminder.reminder_id})])
    b.user("Thanks.")


def easy_delete_reminder(b):
    reminder = b.rng.choice(b.mine(Reminder))
    b.user(f"Delete reminder {reminder.reminder_id}.")
    b.assistant("Deleted.", [("DeleteReminder", {"reminder_id": reminder.reminder_id})])
    b.user("Thank you.")


def easy_get_reminders(b):
    b.user("What's on my to-do list?")
    b.assistant("Here are your reminders.", [("GetReminders", {})])
    b.user("Thanks.")


def easy_current_weather(b):
    b.user(f"What's the weather like in {b.location} right now?")
    (res,) = b.assistant("", [("CurrentWeather", {"location": b.location})])
    b.turns[-1]["text"] = f"It is {res['weather']['conditions'].lower()} with a high of {res['weather']['high']}."
    b.user("Thanks.")


def easy_forecast_weather(b):
    city = b.rng.choice(CITIES)
    b.user(f"What's the forecast for {city} for the next few days?")
    b.assistant(f"Here is the 3-day forecast for {city}.", [("ForecastWeather", {"location": city})])
    b.user("Great.")


def easy_historic_weather(b):
    city, month = b.rng.choice(CITIES), b.rng.choice(MONTHS)
    b.user(f"How warm is {city} usually in {month.capitalize()}?")
    b.assistant(f"Here are typical temperatures for {city} in {month.capitalize()}.",
                [("HistoricWeather", {"location": city, "month": month})])
    b.user("Good to know.")


EASY: dict[str, tuple[Template, bool]] = {  # tool -> (template, user logged in)
    "AddAlarm": (easy_add_alarm, True), "DeleteAlarm": (easy_delete_alarm, True),
    "FindAlarms": (easy_find_alarms, True), "ChangePassword": (easy_change_password, True),
    "DeleteAccount": (easy_delete_account, True), "GetAccountInformation": (easy_get_account_information, True),
    "LogoutUser": (easy_logout_user, True), "QueryUser": (easy_query_user, True),
    "RegisterUser": (easy_register_user, False), "ResetPassword": (easy_reset_password, False),
    "SendVerificationCode": (easy_send_verification_code, False),
    "UpdateAccountInformation": (easy_update_account_information, True), "UserLogin": (easy_user_login, False),
    "CreateEvent": (easy_create_event, True), "DeleteEvent": (easy_delete_event, True),
    "ModifyEvent": (easy_modify_event, True), "QueryCalendar": (easy_query_calendar, True),
    "SearchInbox": (easy_search_inbox, True), "SendEmail": (easy_send_email, True),
    "SearchMessages": (easy_search_messages, True), "SendMessage": (easy_send_message, True),
    "AddReminder": (easy_add_reminder, True), "CompleteReminder": (easy_complete_reminder, True),
    "DeleteReminder": (easy_delete_reminder, True), "GetReminders": (easy_get_reminders, True),
    "CurrentWeather": (easy_current_weather, True), "ForecastWeather": (easy_forecast_weather, True),
    "HistoricWeather": (easy_historic_weather, True),
}


# -- hard: several plugins, dependent calls, missing information --------------------------------
def hard_meeting_late(b):
    """Calendar -> Message (attendees from the query) -> Alarm (time from the event)."""
    day = b.now.date() + timedelta(days=1)
    b.user("What meetings do I have tomorrow?")
    (res,) = b.assistant("", [("QueryCalendar", {"start_time": f"{day} 00:00:00", "end_time": f"{day} 23:59:59"})])
    meetings = [e for e in res["events"] if e["attendees"] and len(e["attendees"]) > 1]
    if not meetings:
        start, end = b.future_slot(days=1, hour=10)
        other = b.rng.choice(b.others).username
        b.turns[-1]["text"] = "You have no meetings tomorrow."
        b.user(f"Then set up a meeting called Sync with {other} tomorrow at 10 for an hour.")
        b.assistant("The meeting is on your calendar.", [("CreateEvent", {
            "name": "Sync", "event_type": "meeting", "start_time": start, "end_time": end, "attendees": [other]})])
        meetings = [{"name": "Sync", "start_time": start, "attendees": [other, b.account.username]}]
    else:
        b.turns[-1]["text"] = "Tomorrow you have: " + "; ".join(f"{e['name']} at {e['start_time'][11:16]}" for e in meetings)
    first = meetings[0]
    b.user(f"Let everyone in the {first['name']} know I'll be 10 minutes late.")
    text = f"I'll be 10 minutes late to {first['name']}."
    b.assistant("I messaged everyone.", [("SendMessage", {"receiver": a, "message": text})
                                         for a in first["attendees"] if a != b.account.username])
    alarm = (datetime.strptime(first["start_time"], TIME_FORMAT) - timedelta(minutes=30)).strftime("%H:%M:%S")
    b.user("Also set an alarm half an hour before it starts.")
    b.assistant(f"Your alarm is set for {clock12(alarm)}.", [("AddAlarm", {"time": alarm})])
    b.user("Perfect, thanks.")


def hard_email_colleague(b):
    """AccountTools (email looked up) -> Email, with the subject asked for first -> Reminder."""
    other = b.rng.choice(b.others)
    subject, body = b.rng.choice(TOPICS)
    b.user(f"I need to email my colleague {other.username} about something.")
    b.assistant("Sure, what should the subject and message be?")
    b.user(f"Subject '{subject}'. Tell them {body}.")
    (res,) = b.assistant("", [("QueryUser", {"username": other.username})])
    address = res["users"][0]["email"]
    b.turns[-1]["text"] = f"{other.username}'s email is {address}. Shall I send it?"
    b.user("Yes, send it.")
    b.assistant("Sent.", [("SendEmail", {"to": [address], "subject": subject, "body": body[0].upper() + body[1:] + "."})])
    due, _ = b.future_slot(days=3, hour=9)
    b.user(f"Remind me to follow up with {other.name.split()[0]} on {b.pretty_day(due)}.")
    b.assistant("Reminder set.", [("AddReminder", {"task": f"Follow up with {other.name.split()[0]}", "due_date": due})])
    b.user("Thanks!")


def hard_reminder_cleanup(b):
    """Reminder list -> complete one by name (id from the list) -> weather -> alarm."""
    b.user("What reminders do I have?")
    (res,) = b.assistant("", [("GetReminders", {})])
    pending = [r for r in res["reminders"] if r["status"] == "pending"]
    b.turns[-1]["text"] = "Your reminders: " + ", ".join(r["task"] for r in res["reminders"])
    if pending:
        target = pending[0]
        b.user(f"I already did '{target['task']}', mark it complete.")
        b.assistant("Marked complete.", [("CompleteReminder", {"reminder_id": target["reminder_id"]})])
    else:
        task = b.rng.choice(TASKS)
        b.user(f"Add one to {task.lower()}.")
        b.assistant("Added.", [("AddReminder", {"task": task})])
    b.user(f"Will it rain in {b.location} in the next days?")
    b.assistant("Here is the forecast.", [("ForecastWeather", {"location": b.location})])
    t = b.time()
    b.user(f"Ok, wake me up at {clock12(t)} tomorrow.")
    b.assistant("Alarm set.", [("AddAlarm", {"time": t})])
    b.user("Thanks.")


def hard_alarm_swap(b):
    """Find alarms -> delete one by time (id from the search) -> add a new one -> current weather."""
    b.user("Show me all my alarms.")
    (res,) = b.assistant("", [("FindAlarms", {})])
    alarms = res["alarms"]
    b.turns[-1]["text"] = "Your alarms: " + ", ".join(clock12(a["time"]) for a in alarms)
    old = alarms[0]
    new = b.time()
    b.user(f"Move the {clock12(old['time'])} one.")
    b.assistant("To what time?")
    b.user(f"{clock12(new)}")
    b.assistant("Done.", [("DeleteAlarm", {"alarm_id": old["alarm_id"]}), ("AddAlarm", {"time": new})])
    b.user(f"And what's the weather in {b.location} now?")
    b.assistant("Here's the current weather.", [("CurrentWeather", {"location": b.location})])
    b.user("Thanks.")


def hard_login_and_cancel(b):
    """Login (credentials asked for) -> Calendar query -> delete an event by name."""
    b.user("Hi, I need to cancel something on my calendar.")
    b.assistant("You need to log in first. What are your username and password?")
    b.user(f"{b.account.username} / {b.account.password}")
    b.assistant("You're logged in.", [("UserLogin", {"username": b.account.username, "password": b.account.password})])
    events = [e for e in b.mine(Event) if e.start_time > b.now.strftime(TIME_FORMAT)]
    target = events[0] if events else b.mine(Event)[0]
    day = target.start_time[:10]
    b.user(f"What's on my calendar on {day}?")
    (res,) = b.assistant("", [("QueryCalendar", {"start_time": f"{day} 00:00:00", "end_time": f"{day} 23:59:59"})])
    b.turns[-1]["text"] = "You have: " + ", ".join(e["name"] for e in res["events"])
    b.user(f"Cancel the {target.name} at {target.start_time[11:16]}.")
    b.assistant("It's cancelled.", [("DeleteEvent", {"event_id": target.event_id})])
    b.user("Thank you.")


def hard_password_recovery(b):
    """Verification code (read back from the world) -> reset -> login -> reminders."""
    b.user("I'm locked out of my account.")
    b.assistant("I can send a verification code. What are your username and email?")
    b.user(f"{b.account.username}, {b.account.email}")
    b.assistant("I sent a code to your email.", [("SendVerificationCode", {"username": b.account.username,
                                                                            "email": b.account.email})])
    code = b.rows(Account, username=b.account.username)[0].verification_code
    new = b.rng.choice(PASSWORDS) + "?"
    b.user(f"The code is {code}. Make my new password {new}")
    b.assistant("Your password is reset.", [("ResetPassword", {"username": b.account.username,
                                                                "verification_code": code, "new_password": new})])
    b.user("Now log me in.")
    b.assistant("You're logged in.", [("UserLogin", {"username": b.account.username, "password": new})])
    b.user("What are my reminders?")
    b.assistant("Here they are.", [("GetReminders", {})])
    b.user("Thanks.")


def hard_reply_to_email(b):
    """Inbox search -> reply to the sender found -> reminder."""
    email = b.rng.choice([e for e in b.mine(Email) if e.date <= b.now.strftime(TIME_FORMAT)])
    keyword = email.subject.split()[0].lower()
    b.user(f"Did I get an email about the {email.subject.lower()}?")
    (res,) = b.assistant("", [("SearchInbox", {"query": email.subject.lower()})])
    found = res["emails"][0]
    b.turns[-1]["text"] = f"Yes, from {found['sender']}: \"{found['subject']}\"."
    b.user("Reply to them that I'll look at it tomorrow.")
    b.assistant("What subject should I use?")
    b.user(f"Re: {found['subject']}")
    b.assistant("Reply sent.", [("SendEmail", {"to": [found["sender"]], "subject": f"Re: {found['subject']}",
                                               "body": "Thanks, I'll look at it tomorrow."})])
    due, _ = b.future_slot(days=1, hour=10)
    b.user(f"Remind me to check the {keyword} tomorrow at 10.")
    b.assistant("Reminder set.", [("AddReminder", {"task": f"Check the {keyword}", "due_date": due})])
    b.user("Thanks.")


def hard_reschedule(b):
    """Calendar query -> modify the event found -> message its attendees."""
    future = [e for e in b.mine(Event) if e.start_time > b.now.strftime(TIME_FORMAT) and e.attendees]
    if not future:
        start, end = b.future_slot(days=2, hour=11)
        other = b.rng.choice(b.others).username
        b.user(f"Set up a meeting called Planning with {other} in two days at 11 for an hour.")
        (res,) = b.assistant("It's on your calendar.", [("CreateEvent", {
            "name": "Planning", "event_type": "meeting", "start_time": start, "end_time": end, "attendees": [other]})])
        event = {"event_id": res["event_id"], "name": "Planning", "start_time": start, "attendees": [other, b.account.username]}
    else:
        target = future[0]
        day = target.start_time[:10]
        b.user(f"What do I have on {day}?")
        (res,) = b.assistant("", [("QueryCalendar", {"start_time": f"{day} 00:00:00", "end_time": f"{day} 23:59:59"})])
        event = next(e for e in res["events"] if e["event_id"] == target.event_id)
        b.turns[-1]["text"] = "That day you have: " + ", ".join(e["name"] for e in res["events"])
    start = datetime.strptime(event["start_time"], TIME_FORMAT) + timedelta(days=1)
    new_start, new_end = start.strftime(TIME_FORMAT), (start + timedelta(hours=1)).strftime(TIME_FORMAT)
    b.user(f"Push the {event['name']} by one day, keep it an hour long.")
    b.assistant("Rescheduled.", [("ModifyEvent", {"event_id": event["event_id"], "new_start_time": new_start,
                                                  "new_end_time": new_end})])
    b.user("Let the attendees know.")
    text = f"{event['name']} moved to {b.pretty_day(new_start)}."
    b.assistant("Everyone is notified.", [("SendMessage", {"receiver": a, "message": text})
                                          for a in event["attendees"] if a != b.account.username])
    b.user("Great.")


def hard_trip_planning(b):
    """Historic and forecast weather -> trip event -> packing reminder."""
    city = b.rng.choice([c for c in CITIES if c != b.location])
    month = b.now.strftime("%B").lower()
    b.user(f"I'm thinking of visiting {city}. How's the weather there this month usually?")
    b.assistant("Here are the typical values.", [("HistoricWeather", {"location": city, "month": month})])
    b.user("And the next three days?")
    b.assistant("Here's the forecast.", [("ForecastWeather", {"location": city})])
    start = datetime.combine(b.now.date() + timedelta(days=2), datetime.min.time()) + timedelta(hours=8)
    end = start + timedelta(days=2, hours=10)
    b.user("Book the trip in my calendar: leaving in two days at 8am, back two days later at 6pm.")
    b.assistant("What should I call the event?")
    b.user(f"Trip to {city}")
    b.assistant("Added.", [("CreateEvent", {"name": f"Trip to {city}", "event_type": "event",
                                            "start_time": start.strftime(TIME_FORMAT),
                                            "end_time": end.strftime(TIME_FORMAT)})])
    due = (start - timedelta(hours=12)).strftime(TIME_FORMAT)
    b.user("Remind me to pack the evening before.")
    b.assistant("Reminder added.", [("AddReminder", {"task": "Pack for the trip", "due_date": due})])
    b.user("Thanks!")


def hard_new_account(b):
    """Register (details collected over turns) -> update the name -> alarm -> reminder."""
    first = b.rng.choice(["Ivy", "Omar", "Lena", "Ravi", "Nora", "Theo"])
    username = f"{first.lower()}{b.rng.randint(1000, 9999)}"
    email, password = f"{username}@somail.com", b.rng.choice(PASSWORDS)
    b.user("I'm new here, can you set me up with an account?")
    b.assistant("Sure! What username, password and email would you like?")
    b.user(f"{username}, {password}, {email}")
    b.assistant("Your account is ready and you're logged in.", [("RegisterUser", {
        "username": username, "password": password, "email": email})])
    phone = f"415-555-{b.rng.randint(1000, 9999)}"
    b.user(f"Please add my name, {first} Lane, to the account, and my phone {phone}.")
    b.assistant("Updated.", [("UpdateAccountInformation", {"password": password, "new_phone_number": phone,
                                                           "new_name": f"{first} Lane"})])
    t = b.time()
    b.user(f"Set an alarm at {clock12(t)}.")
    b.assistant("Alarm set.", [("AddAlarm", {"time": t})])
    b.user("Thanks.")


def hard_account_update(b):
    """Account info -> change email -> message a friend -> logout."""
    b.user("What email do I have on file?")
    (res,) = b.assistant("", [("GetAccountInformation", {})])
    b.turns[-1]["text"] = f"Your email is {res['user']['email']}."
    new = f"{b.account.username}.new@gahoo.com"
    b.user(f"Change it to {new}.")
    b.assistant("Please confirm your password.")
    b.user(b.account.password)
    b.assistant("Email updated.", [("UpdateAccountInformation", {"password": b.account.password, "new_email": new})])
    friend = b.rng.choice(b.others)
    b.user(f"Message {friend.username} my new email.")
    b.assistant("Sent.", [("SendMessage", {"receiver": friend.username, "message": f"My new email is {new}"})])
    b.user("Now log me out.")
    b.assistant("You're logged out.", [("LogoutUser", {})])
    b.user("Bye.")


def hard_message_followup(b):
    """Message search -> reply to its sender -> calendar event with them."""
    message = b.rng.choice([m for m in b.mine(Message) if m.timestamp <= b.now.strftime(TIME_FORMAT)])
    keyword = max(message.message.rstrip("?.!").split(), key=len).lower()
    b.user(f"Find the message that mentioned '{keyword}'.")
    (res,) = b.assistant("", [("SearchMessages", {"query": keyword})])
    found = next(m for m in res["messages"] if m["message_id"] == message.message_id) if any(
        m["message_id"] == message.message_id for m in res["messages"]) else res["messages"][0]
    b.turns[-1]["text"] = f"{found['sender']} wrote: \"{found['message']}\""
    b.user("Reply that we should meet to talk about it.")
    b.assistant("Sent.", [("SendMessage", {"receiver": found["sender"], "message": "We should meet to talk about it."})])
    start, end = b.future_slot(days=2, hour=15, minutes=30)
    b.user("Put a 30 minute meeting with them on my calendar in two days at 3pm, called Catch up.")
    b.assistant("Added.", [("CreateEvent", {"name": "Catch up", "event_type": "meeting", "start_time": start,
                                            "end_time": end, "attendees": [found["sender"]]})])
    b.user("Thanks.")


def hard_todo_reset(b):
    """Reminders -> delete completed ones (ids from the list) -> add a new one -> alarm."""
    b.user("Clean up my to-do list: remove everything I've finished.")
    (res,) = b.assistant("", [("GetReminders", {})])
    done = [r for r in res["reminders"] if r["status"] == "complete"]
    if done:
        b.turns[-1]["text"] = f"You have {len(done)} finished item(s). Removing them."
        b.user("Yes please.")
        b.assistant("Removed.", [("DeleteReminder", {"reminder_id": r["reminder_id"]}) for r in done])
    else:
        b.turns[-1]["text"] = "Nothing is finished yet. Anything else?"
    task = b.rng.choice(TASKS)
    b.user(f"Add a reminder to {task.lower()}.")
    b.assistant("When is it due?")
    due, _ = b.future_slot(days=4, hour=12)
    b.user(f"{b.pretty_day(due)}")
    b.assistant("Added.", [("AddReminder", {"task": task, "due_date": due})])
    t = b.time()
    b.user(f"And an alarm for {clock12(t)}.")
    b.assistant("Alarm set.", [("AddAlarm", {"time": t})])
    b.user("Thanks.")


HARD: list[tuple[Template, bool]] = [
    (hard_meeting_late, True), (hard_email_colleague, True), (hard_reminder_cleanup, True),
    (hard_alarm_swap, True), (hard_login_and_cancel, False), (hard_password_recovery, False),
    (hard_reply_to_email, True), (hard_reschedule, True), (hard_trip_planning, True),
    (hard_new_account, False), (hard_account_update, True), (hard_message_followup, True),
    (hard_todo_reset, True),
]


def generate_task_set(world_seed: int = 0, num_hard: int = 50) -> tuple[ToolTalkWorld, list[dict], list[dict]]:
    """The world and its easy (one per tool) and hard conversations, all from ``world_seed``."""
    world = generate_world(world_seed)
    initial = world.snapshot()
    rng = random.Random(world_seed * 7919 + 1)

    def write(name: str, template: Template, logged_in: bool) -> dict:
        world.restore(initial)
        builder = ConversationBuilder(world, name, random.Random(rng.getrandbits(64)), logged_in=logged_in)
        template(builder)
        return builder.build()

    easy = [write(f"{tool}-easy", template, logged_in) for tool, (template, logged_in) in EASY.items()]
    hard = []
    for i in range(num_hard):
        template, logged_in = HARD[i % len(HARD)]
        name = template.__name__.removeprefix("hard_").replace("_", "-")
        hard.append(write(f"{name}-{i // len(HARD)}", template, logged_in))
    world.restore(initial)
    return world, easy, hard

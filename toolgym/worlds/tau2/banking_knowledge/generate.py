"""Built-in banking_knowledge banks: a seeded Rho-Bank, its knowledge base and tasks over them,
in τ³-bench's own file formats.

:func:`generate_bank` returns ``{"db": ..., "documents": [...], "tasks": [...]}``:

- ``db``: ``db.json``'s shape (every table of τ³'s ``TransactionalDB``, each ``{"data": {id:
  record}, "notes": str}``): users, checking and savings accounts, debit cards, credit card
  accounts with limits, card and bank transactions, payment history and referrals;
- ``documents``: ``documents/*.json``'s shape (``{"id", "title", "content"}``): this bank's
  procedures, written from templates with numbers drawn per seed (the dispute window, the
  expedited-shipping fees, the credit-limit cap, the transfer limit, annual fees), that name the discoverable
  tools the tasks need, plus product pages and general pages the search must see past;
- ``tasks``: ``tasks.json``'s shape: a scripted-user scenario (τ³'s structured instructions:
  reason for the call, what the customer knows, how to behave), the ground-truth actions and
  τ³-style evaluation criteria (``DB``; ``DB`` and ``COMMUNICATE`` where the agent must tell the
  customer a figure; ``ACTION`` with ``compare_args`` for transfers to a human), the documents
  each task relies on (``required_documents``) and the user tools it offers (``user_tools``).
  ``description["template"]`` names the template a task came from.

The discoverable tools are τ³'s (their names, arguments and effects are what τ³'s
``KnowledgeTools`` and ``KnowledgeUserTools`` define), so τ³'s own environment grades these tasks:
``benchmarks/check_banking_builtin.py`` replays each ground truth there (reward 1.0) and a
perturbation per reward component (reward 0). The clock is τ³'s fixed one (2025-11-14 03:40 EST).

``split="train"`` holds the templates of :data:`TRAIN_TEMPLATES`, ``"test"`` those of
:data:`TEST_TEMPLATES`: whole templates are held out. The bank and the knowledge base are the
same for both splits of a seed; the tasks of a split are the same whichever split is asked first.
Everything is drawn from one ``random.Random`` per seed: the same seed gives the same bank.
This module imports only the standard library, so τ³'s own interpreter can load it by path.
"""

from __future__ import annotations

import datetime
import json
import random

#: τ³'s fixed clock for the domain, as ``get_current_time`` and the date-stamping tools give it.
NOW = "2025-11-14 03:40:00 EST"
TODAY_DATE = datetime.date(2025, 11, 14)
#: Tasks per template; 11 train templates give 264 train tasks, 3 test templates 72.
TASKS_PER_TEMPLATE = 24
#: Users in a bank: one per task and some that no task uses.
USERS = 360

FIRST = ("Adele", "Bruno", "Carmen", "Dmitri", "Elif", "Farah", "Gustavo", "Hana", "Imani", "Jonas", "Kalani",
         "Leandro", "Marisol", "Nikhil", "Odette", "Pavel", "Quinn", "Rosalind", "Santiago", "Tamsin", "Ulrich",
         "Valeria", "Wendell", "Ximena", "Yusuf", "Zofia", "Anouk", "Bartosz", "Cosima", "Desmond", "Esme",
         "Florian", "Greta", "Hamid", "Ingrid", "Jasper", "Kaveh", "Lucinda", "Matteo", "Nadia")
LAST = ("Abernathy", "Bergstrom", "Castellanos", "Dunleavy", "Eriksen", "Fairbanks", "Galloway", "Halvorsen",
        "Iwasaki", "Jablonski", "Kowalczyk", "Lindqvist", "Montenegro", "Nakagawa", "Okonkwo", "Pellegrino",
        "Quintero", "Rasmussen", "Sandoval", "Thornbury", "Underhill", "Vasquez", "Whitlock", "Yamamoto",
        "Zielinski", "Ashworth", "Blackwood", "Cardenas", "Delacroix", "Esposito")
STREETS = ("Juniper Court", "Harbor View Road", "Old Mill Lane", "Sycamore Avenue", "Quarry Street",
           "Lantern Way", "Bluebonnet Drive", "Copper Ridge Road", "Foxglove Terrace", "Orchard Bend")
CITIES = (("Tulsa", "OK", "74103", "918"), ("Boise", "ID", "83702", "208"), ("Raleigh", "NC", "27601", "919"),
          ("Madison", "WI", "53703", "608"), ("Omaha", "NE", "68102", "402"), ("Savannah", "GA", "31401", "912"),
          ("Spokane", "WA", "99201", "509"), ("Albuquerque", "NM", "87102", "505"),
          ("Providence", "RI", "02903", "401"), ("Lexington", "KY", "40507", "859"))
MAIL_HOSTS = ("examplemail.com", "postbox.net", "inboxly.org", "mailfield.com")
MERCHANTS = (("Fernbrook Grocers", "Groceries"), ("Skyline Air", "Travel"), ("Harbor Bistro", "Dining"),
             ("Quillsoft Licensing", "Software"), ("Voltline Utilities", "Utilities"),
             ("Marlow Outfitters", "Shopping"), ("Cinemark Plaza", "Entertainment"),
             ("Pinecrest Pharmacy", "Shopping"), ("Northgate Fuel", "Transportation"),
             ("Greenleaf Co-op", "Groceries"), ("Atlas Car Rental", "Travel"), ("Brightpath Streaming", "Entertainment"))
#: τ³'s personal credit cards (``apply_for_credit_card``'s card types) with this bank's tier and
#: reward rates in percent by purchase category, "default" for the rest (the rates τ³'s
#: ``submit_transaction`` earns).
CARDS = (("Bronze Rewards Card", "bronze", "entry", {"default": 1.0}),
         ("Silver Rewards Card", "silver", "mid", {"Travel": 4.0, "Software": 4.0, "default": 1.0}),
         ("Gold Rewards Card", "gold", "premium", {"default": 2.5}),
         ("Platinum Rewards Card", "platinum", "premium", {"default": 10.0}),
         ("EcoCard", "eco", "entry", {"Green": 5.0, "default": 1.0}),
         ("Green Rewards Card", "green", "mid", {"Sustainable": 3.0, "default": 1.0}),
         ("Silver Zoom Card", "zoom", "mid", {"Transportation": 3.0, "default": 1.0}),
         ("Crypto-Cash Back", "crypto", "mid", {"default": 2.0}))
CHECKING_LEVELS = ("Everyday Checking", "Premier Checking")
SAVINGS_LEVELS = ("Goal Savings", "High-Yield Savings")

#: Why a customer closes a card, as they say it, and the code the knowledge base files it under.
CLOSURE_REASONS = (("the annual fee is not worth it to you", "annual_fee"),
                   ("you never use this card any more", "not_using_card"),
                   ("another bank offered you a card you like better", "found_better_card"),
                   ("the rewards on this card are disappointing", "unhappy_with_rewards"),
                   ("you are cutting down the number of cards you carry", "simplifying_finances"),
                   ("you had a bad experience with the card's service", "negative_experience"))
#: Situations that go to a human, as the customer describes them, and the knowledge base's code.
ESCALATIONS = (
    ("Your father, {other}, passed away last month and you are calling about his Rho-Bank accounts.",
     "deceased_account_holder", "a relative of a deceased customer"),
    ("You received a court subpoena asking for your Rho-Bank statements and want the bank's legal team "
     "to handle it.", "legal_or_regulatory_matter", "a subpoena or other legal demand"),
    ("Your former business partner, {other}, claims that your joint savings account belongs to them alone.",
     "account_ownership_dispute", "a disagreement over who owns an account"),
    ("You are calling on behalf of your neighbour, {other}, who asked you to check on their account.",
     "third_party_inquiry", "a caller asking about someone else's account"),
    ("You are visually impaired and need your statements in braille or large print from now on.",
     "accessibility_or_special_needs", "a customer who needs an accessible format or accommodation"),
)
#: Credit card dispute reasons, as the customer describes them, with τ³'s codes.
DISPUTE_REASONS = (("you never made this purchase", "unauthorized_fraudulent_charge"),
                   ("you were charged twice for the same purchase", "duplicate_charge"),
                   ("the amount charged is higher than what you agreed to", "incorrect_amount"),
                   ("you paid but the order never arrived", "goods_services_not_received"),
                   ("you cancelled the subscription but they keep charging you", "canceled_subscription_still_charging"))
#: Dispute reasons that qualify for provisional credit (inside the dispute window).
PROVISIONAL_REASONS = ("unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount")
#: Replacement reasons, as the customer says them, with τ³'s codes.
REPLACEMENT_REASONS = (("the card snapped in half", "damaged"), ("you lost the card somewhere on a trip", "lost"),
                       ("your wallet was stolen with the card in it", "stolen"),
                       ("you saw charges you did not make and think the card number leaked", "fraud_suspected"))

#: The templates of each split: a split holds whole templates, never part of one.
TRAIN_TEMPLATES = ("email_change", "unverified_change", "card_dispute", "card_replacement", "fund_transfer",
                   "card_closure", "referral_link", "cash_back_dispute", "human_escalation", "balance_inquiry",
                   "card_choice")
TEST_TEMPLATES = ("credit_limit_increase", "debit_card_lost", "card_payment")


def generate_bank(seed: int = 0, split: str = "train") -> dict:
    """A bank, its knowledge base and the tasks of ``split`` over them, in τ³-bench's formats.

    Args:
        seed: Draws the bank's customers, balances, policy numbers and tasks.
        split: ``"train"`` or ``"test"``; the two hold disjoint templates.

    Returns:
        ``{"db": db.json's dict, "documents": [document dicts], "tasks": [task dicts]}``.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")
    rng = random.Random(f"toolgym-banking-{seed}")
    policy = _policy(rng)
    db, customers = _bank(rng)
    documents = _documents(policy)
    tasks = _tasks(rng, customers, policy)
    wanted = TRAIN_TEMPLATES if split == "train" else TEST_TEMPLATES
    return {"db": db, "documents": documents,
            "tasks": [task for task in tasks if task["description"]["template"] in wanted]}


# -- the bank --------------------------------------------------------------------------------------
def _policy(rng: random.Random) -> dict:
    """The numbers this bank's procedures state, drawn per seed."""
    return {"dispute_window_days": rng.choice((30, 45, 60)),
            "expedited_fee": {"entry": rng.choice((12.0, 15.0, 20.0)), "mid": rng.choice((8.0, 10.0)),
                              "premium": 0.0},
            "cli_cap_percent": rng.choice((20, 25, 40)),
            "transfer_limit": rng.choice((2000, 2500, 5000)),
            "annual_fee": {card_type: {"entry": 0, "mid": rng.choice((0, 0, 39, 49)),
                                       "premium": rng.choice((95, 150, 250))}[tier]
                           for card_type, _, tier, _ in CARDS}}


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def _date(rng: random.Random, year_from: int, year_to: int) -> str:
    return f"{rng.randrange(1, 13):02d}/{rng.randrange(1, 29):02d}/{rng.randrange(year_from, year_to + 1)}"


def _recent(rng: random.Random, days_back: int) -> str:
    """A date 1 to ``days_back`` days before τ³'s today, as MM/DD/YYYY."""
    return _day(TODAY_DATE - datetime.timedelta(days=rng.randrange(1, days_back + 1)))


def _day(value: datetime.date) -> str:
    return value.strftime("%m/%d/%Y")


def _parse_day(text: str) -> datetime.date:
    return datetime.datetime.strptime(text, "%m/%d/%Y").date()


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _table(notes: str) -> dict:
    return {"data": {}, "notes": notes}


def _bank(rng: random.Random) -> tuple[dict, list[dict]]:
    """The db.json dict and, per customer, what the task templates need to know about them."""
    db = {
        "users": _table("user_id: 10-character hex id. Identity fields: address, email, phone_number, "
                        "date_of_birth (MM/DD/YYYY)."),
        "accounts": _table("Deposit accounts. class: checking or savings; current_holdings: the balance in "
                           "dollars; status: OPEN or CLOSED."),
        "debit_cards": _table("Debit cards linked to checking accounts; card_id: dbc_[user_id]_chk."),
        "referrals": _table("Referrals made by a customer (referrer_id) for an account or card type."),
        "credit_card_applications": _table("Applications for credit cards submitted by customers."),
        "user_discoverable_tools": _table("Tools the agent gave the customer."),
        "user_discoverable_tool_calls": _table("Calls the customer made to tools given to them."),
        "verification_history": _table("Audit log: one record per identity verification, with the verified "
                                       "fields and the time."),
        "credit_card_transaction_history": _table("Credit card purchases; rewards_earned in points."),
        "cash_back_disputes": _table("Customer-submitted disputes about rewards earned on a purchase."),
        "bank_account_transaction_history": _table("Deposit account activity; amount negative for debits."),
        "credit_card_accounts": _table("account_id: cc_[user_id]_[card code]; current_balance and "
                                       "credit_limit in dollars."),
        "agent_discoverable_tools": _table("Discoverable tools the agent called."),
        "task_config": _table("Per-task settings for tool behaviour."),
        "human_transfer_requests": _table("Customer requests to reach a human agent."),
        "transaction_disputes": _table("Formal disputes of credit card transactions."),
        "credit_card_orders": _table("Replacement credit card orders."),
        "debit_card_orders": _table("Debit card orders."),
        "credit_card_closure_reasons": _table("Why customers closed or asked to close a credit card."),
        "credit_card_account_flags": _table("Flags on credit card accounts (fee waivers, promotions)."),
        "credit_limit_increase_requests": _table("Credit limit increase requests and decisions."),
        "payment_history": _table("Credit card payments and whether each was on time."),
        "debit_card_disputes": _table("Formal disputes of debit card transactions."),
    }
    names = rng.sample([(f, l) for f in FIRST for l in LAST], USERS)
    customers = []
    for first, last in names:
        user_id = _hex(rng, 10)
        city, state, zip_code, area = rng.choice(CITIES)
        user = {"name": f"{first} {last}", "user_id": user_id,
                "address": f"{rng.randrange(100, 9999)} {rng.choice(STREETS)}, {city}, {state} {zip_code}",
                "email": f"{first.lower()}.{last.lower()}{rng.randrange(10, 99)}@{rng.choice(MAIL_HOSTS)}",
                "phone_number": f"{area}-555-{rng.randrange(1000, 10000):04d}",
                "date_of_birth": _date(rng, 1950, 2001)}
        db["users"]["data"][user_id] = user
        checking = {"account_id": f"chk_{user_id}", "user_id": user_id, "class": "checking",
                    "level": rng.choice(CHECKING_LEVELS), "date_opened": _date(rng, 2015, 2024), "status": "OPEN",
                    "current_holdings": f"{rng.randrange(80000, 900000) / 100:.2f}"}
        savings = {"account_id": f"sav_{user_id}", "user_id": user_id, "class": "savings",
                   "level": rng.choice(SAVINGS_LEVELS), "date_opened": _date(rng, 2015, 2024), "status": "OPEN",
                   "current_holdings": f"{rng.randrange(50000, 2500000) / 100:.2f}"}
        for account in (checking, savings):
            db["accounts"]["data"][account["account_id"]] = account
        card_id = f"dbc_{user_id}_chk"
        db["debit_cards"]["data"][card_id] = {
            "card_id": card_id, "account_id": checking["account_id"], "user_id": user_id,
            "cardholder_name": user["name"].upper(), "last_4_digits": f"{rng.randrange(10000):04d}",
            "cvv": f"{rng.randrange(1000):03d}", "status": "ACTIVE", "issue_date": _date(rng, 2023, 2024),
            "expiration_date": f"{rng.randrange(1, 13):02d}/28/{rng.randrange(2027, 2030)}",
            "issue_reason": "new_account"}
        cards = []
        for card_type, code, tier, rates in rng.sample(CARDS, rng.choice((1, 2, 2, 3))):
            limit = rng.choice((3000, 5000, 7500, 10000, 15000))
            account = {"account_id": f"cc_{user_id}_{code}", "user_id": user_id, "card_type": card_type,
                       "status": "ACTIVE", "date_of_account_open": _date(rng, 2018, 2024),
                       "current_balance": _money(rng.randrange(5000, limit * 40) / 100),
                       "credit_limit": _money(limit), "reward_points": f"{rng.randrange(200, 40000)} points",
                       "card_last_4_digits": f"{rng.randrange(10000):04d}"}
            db["credit_card_accounts"]["data"][account["account_id"]] = account
            purchases = []
            for merchant, category in rng.sample(MERCHANTS, 4):
                amount = rng.randrange(1200, 60000) / 100
                date = _recent(rng, 120)
                purchase = {"transaction_id": f"txn_{_hex(rng, 12)}", "user_id": user_id,
                            "credit_card_type": card_type, "merchant_name": merchant,
                            "transaction_amount": _money(amount), "transaction_date": date, "category": category,
                            "status": "COMPLETED", "rewards_earned": f"{int(amount * rates.get(category, rates['default']))} points"}
                db["credit_card_transaction_history"]["data"][purchase["transaction_id"]] = purchase
                purchases.append(purchase)
            for months_back in (1, 2):
                payment_id = f"pay_{user_id}_{code}_2025{11 - months_back:02d}"
                db["payment_history"]["data"][payment_id] = {
                    "payment_id": payment_id, "credit_card_account_id": account["account_id"], "user_id": user_id,
                    "payment_date": f"{11 - months_back:02d}/12/2025", "amount": _money(rng.randrange(5000, 90000) / 100),
                    "status": "ON_TIME"}
            cards.append({"account": account, "tier": tier, "purchases": purchases})
        for merchant, _ in rng.sample(MERCHANTS, 2):
            date = _recent(rng, 30)
            txn_id = f"btxn_{_hex(rng, 12)}"
            db["bank_account_transaction_history"]["data"][txn_id] = {
                "transaction_id": txn_id, "account_id": checking["account_id"], "date": date,
                "description": f"DEBIT CARD PURCHASE - {merchant.upper()}", "amount": -rng.randrange(500, 20000) / 100,
                "type": "debit_card_purchase", "status": "posted"}
        if rng.random() < 0.2:
            referral_id = _hex(rng, 16)
            db["referrals"]["data"][referral_id] = {
                "referral_id": referral_id, "referrer_id": user_id, "referred_account_type": cards[0]["account"]["card_type"],
                "referral_status": rng.choice(("COMPLETE", "NO_PROGRESS")), "date": _date(rng, 2024, 2024)}
        customers.append({"user": user, "checking": checking, "savings": savings,
                          "debit_card": db["debit_cards"]["data"][card_id], "cards": cards})
    return db, customers


# -- the knowledge base ----------------------------------------------------------------------------
def _doc(doc_id: str, title: str, content: str) -> dict:
    return {"id": f"kb_{doc_id}", "title": title, "content": content.strip() + "\n"}


DOC_VERIFY = "procedures_identity_check"
DOC_EMAIL = "procedures_profile_email"
DOC_DISPUTE = "procedures_card_dispute_intake"
DOC_REPLACE = "procedures_card_reissue"
DOC_TRANSFER = "procedures_internal_transfers"
DOC_CLOSE = "procedures_card_closure"
DOC_REFERRAL = "procedures_referral_links"
DOC_CASHBACK = "procedures_rewards_discrepancy"
DOC_ESCALATE = "procedures_escalation_codes"
DOC_BALANCE = "procedures_card_balance_questions"
DOC_CLI = "procedures_limit_raise"
DOC_DEBIT = "procedures_missing_debit_card"
DOC_PAYMENT = "procedures_card_payment_from_checking"
DOC_APPLY = "procedures_choosing_a_card"


def _documents(policy: dict) -> list[dict]:
    """This bank's knowledge base: procedures naming the tools, product pages and general pages."""
    fee = policy["expedited_fee"]
    window = policy["dispute_window_days"]
    docs = [
        _doc(DOC_VERIFY, "Servicing Guide: Confirming a Caller's Identity", f"""
# Confirming a caller's identity

Every request that reads or changes a customer's accounts starts with an identity check.

1. Find the customer's profile with `get_user_information_by_name` (exact full name) or
   `get_user_information_by_email`.
2. Ask the caller for identity details and compare them with the profile. The four details on file are
   date of birth, email, phone number and address. The caller must match **at least two** of them.
3. Get the time with `get_current_time`; never type a time yourself.
4. Record the check with `log_verification`, passing the profile's name, user_id, address, email,
   phone_number and date_of_birth exactly as the profile shows them, and the time from step 3.

Log each customer once per call. If the caller cannot match two details, do not discuss or change
the accounts.
"""),
        _doc(DOC_EMAIL, "Servicing Guide: Updating the Email on a Profile", """
# Updating a customer's email address

After the identity check (two matching details, logged), ask for the new address and read it back.
Then call `change_user_email` with the customer's user_id and the new address. The old address stops
receiving statements immediately. A customer who cannot pass the identity check cannot change their
email through this channel.
"""),
        _doc(DOC_DISPUTE, "Servicing Guide: Opening a Dispute on a Card Purchase", f"""
# Opening a dispute on a credit card purchase

Use this for a purchase the customer says is wrong (not for rewards questions; see the rewards
discrepancy page).

1. Complete and log the identity check.
2. Find the purchase with `get_credit_card_transactions_by_user`. The purchase date is the
   transaction_date on the record.
3. Ask the customer: the last four digits of the card, whether they contacted the merchant, the date
   they noticed the problem, and what went wrong. Map what went wrong to one dispute_reason:
   unauthorized_fraudulent_charge (they never made it), duplicate_charge (charged twice),
   incorrect_amount (charged more than agreed), goods_services_not_received,
   canceled_subscription_still_charging.
4. card_action: `cancel_and_reissue` when the reason is unauthorized_fraudulent_charge, otherwise
   `keep_active`. Request a `full_refund` unless the customer asks for part of the amount.
5. Provisional credit: the customer is eligible when the reason is unauthorized_fraudulent_charge,
   duplicate_charge or incorrect_amount **and** they noticed the problem no more than {window} days
   after the purchase date. Otherwise they are not eligible.
6. Unlock the filing tool with `unlock_discoverable_agent_tool` (agent_tool_name
   `file_credit_card_transaction_dispute_4829`), then call it with `call_discoverable_agent_tool`,
   giving transaction_id, card_action, card_last_4_digits, full_name, user_id, phone, email and
   address (as on the profile), contacted_merchant, purchase_date, issue_noticed_date,
   dispute_reason, resolution_requested and eligible_for_provisional_credit.
"""),
        _doc(DOC_REPLACE, "Servicing Guide: Reissuing a Credit Card", f"""
# Reissuing a credit card

1. Complete and log the identity check, then find the card with `get_credit_card_accounts_by_user`.
2. Ask why the card needs replacing and record one reason: damaged, lost, stolen, fraud_suspected,
   expired or other.
3. Ship to the address on the profile unless the customer gives another address.
4. Shipping speed. Standard delivery takes 7-10 business days and is free. Expedited delivery takes
   2-3 business days and costs, by card tier: entry tier ${fee['entry']:.2f}, mid tier
   ${fee['mid']:.2f}, premium tier free. Expedited shipping is always used, free of charge, when the
   reason is stolen or fraud_suspected. Otherwise offer it and use it only if the customer accepts
   the fee (or the tier makes it free).
5. Unlock `order_replacement_credit_card_7291` with `unlock_discoverable_agent_tool` and call it with
   `call_discoverable_agent_tool`: credit_card_account_id, user_id, shipping_address, reason and
   expedited_shipping (true or false). Ordering cancels the old card.
6. Tell the customer the delivery window: "2-3 business days" for expedited, "7-10 business days"
   for standard.
"""),
        _doc(DOC_TRANSFER, "Servicing Guide: Moving Money Between a Customer's Own Accounts", f"""
# Moving money between a customer's own deposit accounts

1. Complete and log the identity check.
2. Look up the accounts: unlock `get_all_user_accounts_by_user_id_3847` and call it with the user_id.
   Both accounts must belong to the customer and be OPEN, and the source must hold the amount.
3. One transfer may move at most {_money(policy['transfer_limit'])}. For a larger amount, move the
   limit and tell the customer to call again tomorrow for the rest.
4. Unlock `transfer_funds_between_bank_accounts_7291` and call it with source_account_id,
   destination_account_id and amount (a number of dollars).
5. Tell the customer the new balance of the account the money left, as the tool reports it.
"""),
        _doc(DOC_CLOSE, "Servicing Guide: Closing a Credit Card at the Customer's Request", """
# Closing a credit card

1. Complete and log the identity check and find the card with `get_credit_card_accounts_by_user`.
2. Ask why the customer is closing the card and file the reason first: unlock
   `log_credit_card_closure_reason_4521` and call it with credit_card_account_id, user_id and
   closure_reason, one of:
   - annual_fee: the fee is not worth it;
   - not_using_card: the customer no longer uses the card;
   - found_better_card: another card or bank suits them better;
   - unhappy_with_rewards: the rewards disappoint them;
   - simplifying_finances: they want fewer cards;
   - negative_experience: a bad service experience;
   - other: anything else.
3. Then unlock `close_credit_card_account_7834` and call it with credit_card_account_id and user_id.
   Any balance stays due and is billed as usual.
"""),
        _doc(DOC_REFERRAL, "Servicing Guide: Referral Links for Cardholders", """
# Referral links

A customer may refer friends only to a card they hold themselves (an ACTIVE credit card account in
their name). Check with `get_credit_card_accounts_by_user` after the identity check. For any other
card, explain that referrals are open only to cardholders of that card.

The customer creates the link themselves: give them the tool with `give_discoverable_user_tool`
(discoverable_tool_name `get_referral_link`, arguments their user_id and the card_name exactly as
the account shows it). The customer then calls it with those arguments.
"""),
        _doc(DOC_CASHBACK, "Servicing Guide: When a Purchase Earned Too Few Points", """
# Rewards discrepancies on a purchase

When a customer says a purchase earned fewer points than it should have. A purchase earns its
amount in dollars times the card's reward rate in percent, in points, rounded down (see the card's
facts sheet): $200.50 at 2.5% earns 501 points.

1. Complete and log the identity check.
2. Find the purchase with `get_credit_card_transactions_by_user` (merchant and date).
3. The customer files the discrepancy themselves: give them `submit_cash_back_dispute_0589` with
   `give_discoverable_user_tool`, with arguments their user_id and the purchase's transaction_id.
   The customer then calls the tool with those arguments.
4. Ask the customer what the tool answered. If the dispute was SUBMITTED, it is queued for review:
   change nothing. If it was RESOLVED (approved at once), correct the purchase: unlock
   `update_transaction_rewards_3847` and call it with the transaction_id and new_rewards_earned,
   the points the purchase should have earned (for example "501 points").
"""),
        _doc(DOC_ESCALATE, "Servicing Guide: Situations That Go to a Specialist", f"""
# Situations that go to a human specialist

Some situations are never handled in this channel. Transfer them at once with
`transfer_to_human_agents`, with a short summary and the reason code below. No identity check is
needed first.

| Situation | reason |
|---|---|
{chr(10).join(f"| {label} | {code} |" for _, code, label in ESCALATIONS)}
| a suspected fraud ring or a security breach | fraud_or_security_concern |
"""),
        _doc(DOC_BALANCE, "Servicing Guide: Balance and Points Questions", """
# Questions about a card's balance or points

After the identity check (two matching details, logged), read the card with
`get_credit_card_accounts_by_user` and tell the customer the card's current_balance and
reward_points exactly as the record shows them. Balances of deposit accounts are read the same way
with the account tools.
"""),
        _doc(DOC_CLI, "Servicing Guide: Requests to Raise a Credit Limit", f"""
# Credit limit increase requests

1. Complete and log the identity check and find the card with `get_credit_card_accounts_by_user`.
2. One request may ask for at most {policy['cli_cap_percent']}% of the card's current credit_limit,
   rounded down to a whole $100. If the customer asks for more, offer that maximum.
3. Unlock `submit_credit_limit_increase_request_7392` and call it with credit_card_account_id,
   user_id and requested_increase_amount (whole dollars). Decisions arrive by email.
"""),
        _doc(DOC_DEBIT, "Servicing Guide: A Debit Card That Is Missing", """
# A missing debit card

1. Complete and log the identity check.
2. Find the card: unlock `get_all_user_accounts_by_user_id_3847` and call it with the user_id to
   get the checking account, then unlock `get_debit_cards_by_account_id_7823` and call it with that
   account_id.
3. If the customer only misplaced the card and may still find it, freeze it: unlock
   `freeze_debit_card_3892` and call it with the card_id.
4. If the card was stolen, close it for good: unlock `close_debit_card_4721` and call it with the
   card_id and reason `stolen`.
"""),
        _doc(DOC_PAYMENT, "Servicing Guide: Paying a Card From a Checking Account", """
# Paying a credit card from a checking account

1. Complete and log the identity check.
2. Unlock `get_all_user_accounts_by_user_id_3847` and call it with the user_id to see the checking
   account and the card.
3. The payment may not exceed the checking balance or the card's current balance. "Pay it off"
   means the card's whole current balance.
4. Unlock `pay_credit_card_from_checking_9182` and call it with user_id, checking_account_id,
   credit_card_account_id and amount.
5. Tell the customer the card's new balance as the tool reports it.
"""),
        _doc(DOC_APPLY, "Servicing Guide: Helping a Customer Choose a Credit Card", """
# Helping a customer choose a credit card

Ask what the customer spends most on and the most they will pay in annual fees. Among the cards
whose annual fee fits (see each card's facts sheet), recommend the one with the highest reward rate
on that kind of purchase. No identity check is needed to discuss or apply for a card.

Customers apply themselves with their `apply_for_credit_card` tool: the card type exactly as the
facts sheet names it, their full legal name, their annual income, and whether they have a
Rho-Bank+ subscription.
"""),
    ]
    for card_type, code, tier, rates in CARDS:
        special = "".join(f", {rate:g}% on {category}" for category, rate in rates.items() if category != "default")
        docs.append(_doc(f"product_card_{code}", f"Card Facts Sheet: {card_type}", f"""
# {card_type}

- Tier: {tier}.
- Rewards: {rates['default']:g}% back on purchases{special}, paid as points (1 point per cent).
- Annual fee: {_money(policy['annual_fee'][card_type]) if policy['annual_fee'][card_type] else 'none'}.
- Expedited replacement shipping: {'free' if fee[tier] == 0 else _money(fee[tier])}.
- Referral links: available to holders of this card.
"""))
    for level, rate in zip(CHECKING_LEVELS + SAVINGS_LEVELS, ("0.01", "0.05", "1.10", "3.40")):
        docs.append(_doc(f"product_deposit_{level.lower().replace(' ', '_')}", f"Deposit Facts Sheet: {level}", f"""
# {level}

- Annual percentage yield: {rate}%.
- Transfers between a customer's own accounts: free, up to {_money(policy['transfer_limit'])} per transfer.
"""))
    for slug, title, body in (
            ("general_hours", "Branch and Phone Hours", "Branches open 9-5 on weekdays; phone support never closes."),
            ("general_atm", "Using Out-of-Network ATMs", "Rho-Bank refunds two out-of-network ATM fees per month."),
            ("general_app", "Mobile App Sign-In Help", "Customers reset app passwords themselves from the sign-in page."),
            ("general_statements", "Where to Find Statements", "Statements are in the app under Documents for 7 years."),
            ("general_travel", "Travel Notices", "Cards work abroad without a travel notice; no foreign fee on premium tier.")):
        docs.append(_doc(slug, title, f"# {title}\n\n{body}"))
    return docs


# -- the tasks -------------------------------------------------------------------------------------
def _call(tool: str, requestor: str = "assistant", /, **arguments) -> tuple[str, str, dict]:
    return tool, requestor, arguments


def _discoverable(name: str, **arguments) -> list[tuple[str, str, dict]]:
    """Unlocking an agent tool and calling it (its arguments as τ³ takes them: a JSON string)."""
    return [_call("unlock_discoverable_agent_tool", agent_tool_name=name),
            _call("call_discoverable_agent_tool", agent_tool_name=name, arguments=json.dumps(arguments))]


def _verified(user: dict) -> list[tuple[str, str, dict]]:
    """The identity check as the knowledge base asks for it: look up, the time, the log."""
    return [_call("get_user_information_by_name", customer_name=user["name"]),
            _call("get_current_time"),
            _call("log_verification", name=user["name"], user_id=user["user_id"], address=user["address"],
                  email=user["email"], phone_number=user["phone_number"], date_of_birth=user["date_of_birth"],
                  time_verified=NOW)]


IDENTITY_FIELDS = (("email", "Your email is {}."), ("phone_number", "Your phone number is {}."),
                   ("date_of_birth", "Your date of birth is {}."), ("address", "Your address is {}."))


def _known(rng: random.Random, user: dict, extra: str = "") -> str:
    """What the customer knows: their name and two of the four identity details, then ``extra``."""
    shown = rng.sample(IDENTITY_FIELDS, 2)
    facts = [f"Your name is {user['name']}."] + [text.format(user[key]) for key, text in shown]
    return " ".join(facts + ([extra] if extra else []))


def _task(template: str, number: int, reason: str, known: str, behaviour: str,
          actions: list[tuple[str, str, dict]], documents: tuple[str, ...], communicate: tuple[str, ...] = (),
          basis: tuple[str, ...] = ("DB",), compare_args: dict | None = None, unknown: str | None = None,
          initial_state: dict | None = None) -> dict:
    task_id = f"builtin_{template}_{number:03d}"
    criteria_actions = []
    for index, (name, requestor, arguments) in enumerate(actions):
        action = {"action_id": f"{task_id}_{index}", "requestor": requestor, "name": name,
                  "arguments": arguments, "info": None}
        if compare_args and name in compare_args:
            action["compare_args"] = compare_args[name]
        criteria_actions.append(action)
    user_tools = sorted({name for name, requestor, _ in actions if requestor == "user"})
    if communicate:
        basis = basis + ("COMMUNICATE",)
    return {
        "id": task_id,
        "description": {"purpose": f"Built-in banking_knowledge task ({template}).", "relevant_policies": None,
                        "notes": None, "template": template},
        "user_scenario": {"persona": None, "instructions": {
            "domain": "banking_knowledge", "reason_for_call": reason, "known_info": known,
            "unknown_info": unknown, "task_instructions": behaviour}},
        "initial_state": initial_state,
        "evaluation_criteria": {"actions": criteria_actions, "communicate_info": list(communicate),
                                "nl_assertions": None, "reward_basis": list(basis)},
        "annotations": None,
        "user_tools": user_tools,
        "required_documents": [f"kb_{doc}" for doc in documents],
    }


VERIFY_BEHAVIOUR = "Give your identity details when the agent asks for them. "
END = "When the agent confirms it is done, thank them and end the conversation."


def _tasks(rng: random.Random, customers: list[dict], policy: dict) -> list[dict]:
    """Every template's tasks, each over a customer of its own (drawn in one fixed order)."""
    pool = list(customers)
    rng.shuffle(pool)
    tasks = []
    for template in TRAIN_TEMPLATES + TEST_TEMPLATES:
        make = TEMPLATES[template]
        for number in range(TASKS_PER_TEMPLATE):
            tasks.append(make(rng, pool.pop(), policy, number, template))
    return tasks


def _email_change(rng, customer, policy, number, template):
    user = customer["user"]
    first, last = user["name"].lower().split()
    new_email = f"{first[0]}{last}.{rng.randrange(100, 999)}@{rng.choice(MAIL_HOSTS)}"
    return _task(template, number, f"You want the email on your Rho-Bank profile changed to {new_email}.",
                 _known(rng, user, f"Your new email address is {new_email}."),
                 VERIFY_BEHAVIOUR + END,
                 _verified(user) + [_call("change_user_email", user_id=user["user_id"], new_email=new_email)],
                 (DOC_VERIFY, DOC_EMAIL))


def _unverified_change(rng, customer, policy, number, template):
    """A caller who matches only one identity detail (the others they give are out of date): the
    knowledge base forbids the change, so the ground truth is the profile lookup alone."""
    user = customer["user"]
    (right_key, right_text), (stale_key, stale_text) = rng.sample(IDENTITY_FIELDS[:2], 2)
    stale = user[stale_key]
    while stale == user[stale_key]:
        stale = {"email": f"{user['name'].split()[0].lower()}.old{rng.randrange(10, 99)}@{rng.choice(MAIL_HOSTS)}",
                 "phone_number": f"{user['phone_number'][:3]}-555-{rng.randrange(1000, 10000):04d}"}[stale_key]
    first, last = user["name"].lower().split()
    new_email = f"{first}{last[0]}{rng.randrange(100, 999)}@{rng.choice(MAIL_HOSTS)}"
    known = (f"Your name is {user['name']}. {right_text.format(user[right_key])} {stale_text.format(stale)} "
             f"Your new email address is {new_email}.")
    return _task(template, number, f"You want the email on your Rho-Bank profile changed to {new_email}.", known,
                 VERIFY_BEHAVIOUR + "If the agent says it cannot verify you, accept that and end the conversation.",
                 [_call("get_user_information_by_name", customer_name=user["name"])], (DOC_VERIFY, DOC_EMAIL),
                 unknown="You do not remember your date of birth or address as the bank has them.")


def _card_dispute(rng, customer, policy, number, template):
    user = customer["user"]
    card = rng.choice(customer["cards"])
    purchase = rng.choice(card["purchases"])
    said, reason = rng.choice(DISPUTE_REASONS)
    bought = _parse_day(purchase["transaction_date"])
    days = min(rng.choice((3, 10, 20, policy["dispute_window_days"] + 15)), (TODAY_DATE - bought).days)
    noticed = _day(bought + datetime.timedelta(days=days))
    contacted = rng.random() < 0.5
    eligible = reason in PROVISIONAL_REASONS and days <= policy["dispute_window_days"]
    arguments = {"transaction_id": purchase["transaction_id"],
                 "card_action": "cancel_and_reissue" if reason == "unauthorized_fraudulent_charge" else "keep_active",
                 "card_last_4_digits": card["account"]["card_last_4_digits"], "full_name": user["name"],
                 "user_id": user["user_id"], "phone": user["phone_number"], "email": user["email"],
                 "address": user["address"], "contacted_merchant": contacted,
                 "purchase_date": purchase["transaction_date"], "issue_noticed_date": noticed,
                 "dispute_reason": reason, "resolution_requested": "full_refund",
                 "eligible_for_provisional_credit": eligible}
    extra = (f"The charge is {purchase['transaction_amount']} at {purchase['merchant_name']} on "
             f"{purchase['transaction_date']} on your {card['account']['card_type']}, whose last four digits are "
             f"{card['account']['card_last_4_digits']}. You noticed the problem on {noticed}. "
             + ("You already contacted the merchant." if contacted else "You have not contacted the merchant."))
    return _task(template, number,
                 f"You want to dispute a charge from {purchase['merchant_name']}: {said}. You want a full refund.",
                 _known(rng, user, extra), VERIFY_BEHAVIOUR + END,
                 _verified(user) + [_call("get_credit_card_transactions_by_user", user_id=user["user_id"])]
                 + _discoverable("file_credit_card_transaction_dispute_4829", **arguments),
                 (DOC_VERIFY, DOC_DISPUTE))


def _card_replacement(rng, customer, policy, number, template):
    user = customer["user"]
    card = rng.choice(customer["cards"])
    said, reason = rng.choice(REPLACEMENT_REASONS)
    fee = policy["expedited_fee"][card["tier"]]
    expedited = reason in ("stolen", "fraud_suspected") or fee == 0
    if rng.random() < 0.3:
        city, state, zip_code, _ = rng.choice(CITIES)
        address = f"{rng.randrange(100, 9999)} {rng.choice(STREETS)}, {city}, {state} {zip_code}"
        where = f"You are staying elsewhere for a while: ship the new card to {address}."
    else:
        address, where = user["address"], "Ship the new card to the address on file."
    account = card["account"]
    window = "2-3 business days" if expedited else "7-10 business days"
    return _task(template, number, f"You need a replacement for your {account['card_type']}: {said}.",
                 _known(rng, user, where), VERIFY_BEHAVIOUR
                 + "You would like faster delivery only if it costs nothing; decline any shipping fee. " + END,
                 _verified(user) + [_call("get_credit_card_accounts_by_user", user_id=user["user_id"])]
                 + _discoverable("order_replacement_credit_card_7291", credit_card_account_id=account["account_id"],
                                 user_id=user["user_id"], shipping_address=address, reason=reason,
                                 expedited_shipping=expedited),
                 (DOC_VERIFY, DOC_REPLACE, f"product_card_{account['account_id'].rsplit('_', 1)[1]}"),
                 communicate=(window,))


def _balance(account: dict) -> float:
    return float(account["current_holdings"].replace("$", "").replace(",", ""))


def _fund_transfer(rng, customer, policy, number, template):
    user = customer["user"]
    source, destination = ((customer["checking"], customer["savings"]) if rng.random() < 0.5
                           else (customer["savings"], customer["checking"]))
    limit = float(policy["transfer_limit"])
    if _balance(source) > limit + 500 and rng.random() < 0.3:
        wanted, moved = limit + 500, limit
    else:
        wanted = moved = float(rng.randrange(1, int(min(_balance(source), limit)) // 50 + 1) * 50)
    behaviour = VERIFY_BEHAVIOUR + ("If the agent says the amount is over the limit, accept moving the limit now. "
                                    if wanted > moved else "") + END
    return _task(template, number,
                 f"You want to move {_money(wanted)} from your {source['class']} account to your "
                 f"{destination['class']} account.", _known(rng, user), behaviour,
                 _verified(user) + _discoverable("get_all_user_accounts_by_user_id_3847", user_id=user["user_id"])
                 + _discoverable("transfer_funds_between_bank_accounts_7291", source_account_id=source["account_id"],
                                 destination_account_id=destination["account_id"], amount=moved),
                 (DOC_VERIFY, DOC_TRANSFER), communicate=(f"{_balance(source) - moved:.2f}",))


def _card_closure(rng, customer, policy, number, template):
    user = customer["user"]
    account = rng.choice(customer["cards"])["account"]
    said, code = rng.choice(CLOSURE_REASONS)
    ids = {"credit_card_account_id": account["account_id"], "user_id": user["user_id"]}
    return _task(template, number, f"You want to close your {account['card_type']}.",
                 _known(rng, user, f"If asked why: {said}."), VERIFY_BEHAVIOUR + END,
                 _verified(user) + [_call("get_credit_card_accounts_by_user", user_id=user["user_id"])]
                 + _discoverable("log_credit_card_closure_reason_4521", closure_reason=code, **ids)
                 + _discoverable("close_credit_card_account_7834", **ids),
                 (DOC_VERIFY, DOC_CLOSE))


def _referral_link(rng, customer, policy, number, template):
    user = customer["user"]
    held = {card["account"]["card_type"] for card in customer["cards"]}
    card_type = rng.choice(sorted(held))
    other = rng.choice([c[0] for c in CARDS if c[0] not in held])
    arguments = {"user_id": user["user_id"], "card_name": card_type}
    behaviour = (VERIFY_BEHAVIOUR + f"Ask first for a referral link for the {other}. If the agent says you cannot "
                 f"refer people to that card, ask for one for your {card_type} instead. When the agent gives you a "
                 f"tool, call it with your user id ({user['user_id']}) and the card name. " + END)
    return _task(template, number, "You want a referral link to share with a friend.",
                 _known(rng, user, f"Your user id is {user['user_id']}."), behaviour,
                 _verified(user) + [_call("get_credit_card_accounts_by_user", user_id=user["user_id"]),
                                    _call("give_discoverable_user_tool", discoverable_tool_name="get_referral_link",
                                          arguments=json.dumps(arguments)),
                                    _call("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
                                          arguments=json.dumps(arguments))],
                 (DOC_VERIFY, DOC_REFERRAL))


def _cash_back_dispute(rng, customer, policy, number, template):
    user = customer["user"]
    card = rng.choice(customer["cards"])
    purchase = rng.choice(card["purchases"])
    earned = int(purchase["rewards_earned"].split()[0])
    # The bank's record of this purchase (the same dict as in db) is given half its points: the
    # discrepancy the customer calls about.
    purchase["rewards_earned"] = f"{earned // 2} points"
    arguments = {"user_id": user["user_id"], "transaction_id": purchase["transaction_id"]}
    extra = (f"The purchase was {purchase['transaction_amount']} at {purchase['merchant_name']} on "
             f"{purchase['transaction_date']} with your {card['account']['card_type']}. It earned only "
             f"{purchase['rewards_earned']}; you expected {earned} points.")
    behaviour = (VERIFY_BEHAVIOUR + "When the agent gives you a tool, call it with the arguments the agent gives, "
                 "and tell the agent what it answered. " + END)
    # Every other task runs with τ³'s setting that approves rewards disputes at once (as τ³'s own
    # tasks set it: the task's initial agent data); the agent must then correct the points.
    approved_at_once = number % 2 == 1
    correction = (_discoverable("update_transaction_rewards_3847", transaction_id=purchase["transaction_id"],
                                new_rewards_earned=f"{earned} points") if approved_at_once else [])
    return _task(template, number, f"A purchase at {purchase['merchant_name']} earned fewer points than it should have.",
                 _known(rng, user, extra), behaviour,
                 _verified(user) + [_call("get_credit_card_transactions_by_user", user_id=user["user_id"]),
                                    _call("give_discoverable_user_tool",
                                          discoverable_tool_name="submit_cash_back_dispute_0589",
                                          arguments=json.dumps(arguments)),
                                    _call("call_discoverable_user_tool", "user",
                                          discoverable_tool_name="submit_cash_back_dispute_0589",
                                          arguments=json.dumps(arguments))] + correction,
                 (DOC_VERIFY, DOC_CASHBACK, f"product_card_{card['account']['account_id'].rsplit('_', 1)[1]}"),
                 initial_state=({"initialization_data": {
                     "agent_data": {"task_config": {"data": {"dispute_settings": {"auto_resolve_disputes": True}}}},
                     "user_data": None}, "initialization_actions": None, "message_history": None}
                     if approved_at_once else None))


def _human_escalation(rng, customer, policy, number, template):
    user = customer["user"]
    situation, code, _ = ESCALATIONS[number % len(ESCALATIONS)]
    other = f"{rng.choice(FIRST)} {user['name'].split()[1]}"
    return _task(template, number, situation.format(other=other), f"Your name is {user['name']}.",
                 "Explain your situation. Once the agent transfers you, end the conversation.",
                 [_call("transfer_to_human_agents", summary=situation.format(other=other), reason=code)],
                 (DOC_ESCALATE,), basis=("ACTION",), compare_args={"transfer_to_human_agents": ["reason"]})


def _balance_inquiry(rng, customer, policy, number, template):
    user = customer["user"]
    account = rng.choice(customer["cards"])["account"]
    balance = account["current_balance"].replace("$", "").replace(",", "")
    return _task(template, number, f"You want to know the current balance and points on your {account['card_type']}.",
                 _known(rng, user), VERIFY_BEHAVIOUR + "Once you hear the balance and points, end the conversation.",
                 _verified(user) + [_call("get_credit_card_accounts_by_user", user_id=user["user_id"])],
                 (DOC_VERIFY, DOC_BALANCE), communicate=(balance, account["reward_points"]))


def _credit_limit_increase(rng, customer, policy, number, template):
    user = customer["user"]
    account = rng.choice(customer["cards"])["account"]
    limit = float(account["credit_limit"].replace("$", "").replace(",", ""))
    cap = int(limit * policy["cli_cap_percent"] / 100) // 100 * 100
    wanted = rng.choice((cap // 2 // 100 * 100 or 100, cap, cap + 1000, cap * 2))
    granted = min(wanted, cap)
    behaviour = VERIFY_BEHAVIOUR + ("If the agent offers a smaller maximum, accept it. " if wanted > cap else "") + END
    ids = {"credit_card_account_id": account["account_id"], "user_id": user["user_id"]}
    return _task(template, number, f"You want the credit limit on your {account['card_type']} raised by {_money(wanted)}.",
                 _known(rng, user), behaviour,
                 _verified(user) + [_call("get_credit_card_accounts_by_user", user_id=user["user_id"])]
                 + _discoverable("submit_credit_limit_increase_request_7392", requested_increase_amount=granted, **ids),
                 (DOC_VERIFY, DOC_CLI))


def _debit_card_lost(rng, customer, policy, number, template):
    user = customer["user"]
    card = customer["debit_card"]
    stolen = rng.random() < 0.5
    final = (_discoverable("close_debit_card_4721", card_id=card["card_id"], reason="stolen") if stolen
             else _discoverable("freeze_debit_card_3892", card_id=card["card_id"]))
    reason = ("Your debit card was stolen from your bag this morning." if stolen else
              "You cannot find your debit card; it is probably somewhere at home.")
    return _task(template, number, reason, _known(rng, user), VERIFY_BEHAVIOUR + END,
                 _verified(user) + _discoverable("get_all_user_accounts_by_user_id_3847", user_id=user["user_id"])
                 + _discoverable("get_debit_cards_by_account_id_7823", account_id=customer["checking"]["account_id"])
                 + final, (DOC_VERIFY, DOC_DEBIT))


def _card_payment(rng, customer, policy, number, template):
    user = customer["user"]
    account = rng.choice(customer["cards"])["account"]
    owed = float(account["current_balance"].replace("$", "").replace(",", ""))
    checking = _balance(customer["checking"])
    whole = rng.random() < 0.4 and owed <= checking
    amount = owed if whole else float(min(rng.randrange(1, 20) * 25, int(owed), int(checking)))
    said = "pay off the whole balance of" if whole else f"pay {_money(amount)} toward"
    return _task(template, number, f"You want to {said} your {account['card_type']} from your checking account.",
                 _known(rng, user), VERIFY_BEHAVIOUR + END,
                 _verified(user) + _discoverable("get_all_user_accounts_by_user_id_3847", user_id=user["user_id"])
                 + _discoverable("pay_credit_card_from_checking_9182", user_id=user["user_id"],
                                 checking_account_id=customer["checking"]["account_id"],
                                 credit_card_account_id=account["account_id"], amount=amount),
                 (DOC_VERIFY, DOC_PAYMENT), communicate=(f"{owed - amount:.2f}",))


def _card_choice(rng, customer, policy, number, template):
    """A new card chosen from the product pages: the most on one category within a fee budget;
    the customer applies with their own tool (no identity check: an application is not an account)."""
    user = customer["user"]
    fees = policy["annual_fee"]
    while True:  # a category and budget with one best card (no tie at the top)
        category = rng.choice(("Travel", "Software", "Transportation", "Green", "Sustainable", "Dining"))
        budget = rng.choice((0, 0, 50, 300))
        rates = sorted(((r.get(category, r["default"]), name) for name, _, _, r in CARDS if fees[name] <= budget),
                       reverse=True)
        if len(rates) == 1 or rates[0][0] > rates[1][0]:
            break
    card_type = rates[0][1]
    income = float(rng.randrange(35, 250) * 1000)
    limit = "no annual fee at all" if budget == 0 else f"an annual fee of at most {_money(budget)}"
    return _task(template, number, f"You want a new Rho-Bank credit card that earns the most on {category} purchases, "
                 f"with {limit}.",
                 f"Your name is {user['name']}. Your annual income is {_money(income)}. You do not have a Rho-Bank+ "
                 "subscription.",
                 "Ask the agent which card fits. Once the agent names it, apply for it yourself with your "
                 "apply_for_credit_card tool (the card, your full name, your income), then end the conversation.",
                 [_call("apply_for_credit_card", "user", card_type=card_type, customer_name=user["name"],
                        annual_income=income, rho_bank_subscription=False)],
                 (DOC_APPLY,) + tuple(f"product_card_{code}" for _, code, _, _ in CARDS))


TEMPLATES = {"email_change": _email_change, "unverified_change": _unverified_change, "card_choice": _card_choice, "card_dispute": _card_dispute, "card_replacement": _card_replacement,
             "fund_transfer": _fund_transfer, "card_closure": _card_closure, "referral_link": _referral_link,
             "cash_back_dispute": _cash_back_dispute, "human_escalation": _human_escalation,
             "balance_inquiry": _balance_inquiry, "credit_limit_increase": _credit_limit_increase,
             "debit_card_lost": _debit_card_lost, "card_payment": _card_payment}

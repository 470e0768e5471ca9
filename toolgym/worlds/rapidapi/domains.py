"""The vocabulary of the generated RapidAPI catalogue: categories, entity kinds and their fields.

Every generated tool serves one kind of entity (movies, teams, recipes, ...). A kind has fields;
each field is an ``enum`` (a few values), an ``int`` or a ``float`` (a range) or a ``text``
(one of a pool). Every kind has at least one enum field (for list-by and create APIs) and one
numeric field (for top-by APIs).
"""

from __future__ import annotations

#: The 49 RapidAPI categories of ToolLLM's catalogue.
CATEGORIES = (
    "Data", "Sports", "Finance", "Movies", "Food", "Travel", "Weather", "Music", "Entertainment", "Gaming",
    "Education", "Health_and_Fitness", "eCommerce", "Business", "Communication", "Tools", "Location",
    "Transportation", "Science", "Medical", "News_Media", "Social", "Email", "SMS", "Video_Images",
    "Translation", "Text_Analysis", "Cryptography", "Financial", "Jobs", "Events", "Logistics", "Advertising",
    "Artificial_Intelligence_Machine_Learning", "Database", "Devices", "Energy", "Mapping", "Monitoring",
    "Other", "Payments", "Reward", "Search", "Storage", "Visual_Recognition", "Cybersecurity", "Commerce",
    "Business_Software", "Cryptocurrency",
)

CITIES = ("Lisbon", "Nairobi", "Osaka", "Denver", "Porto Alegre", "Krakow", "Hanoi", "Toronto", "Seville",
          "Perth", "Bergen", "Quito", "Austin", "Tunis", "Leeds", "Busan")
COUNTRIES = ("Portugal", "Kenya", "Japan", "Canada", "Brazil", "Poland", "Vietnam", "Spain", "Australia",
             "Norway", "Ecuador", "Tunisia", "Korea", "Chile")

# kind -> (plural, fields); a field is (name, type, spec).
KINDS: dict[str, tuple[str, tuple]] = {
    "movie": ("movies", (("genre", "enum", ("drama", "comedy", "thriller", "animation", "documentary")),
                         ("year", "int", (1970, 2023)), ("rating", "float", (1.0, 9.9)),
                         ("runtime_minutes", "int", (70, 190)), ("country", "text", COUNTRIES))),
    "series": ("series", (("network", "enum", ("streamline", "arcnet", "novaplay", "cinebox")),
                          ("seasons", "int", (1, 12)), ("rating", "float", (1.0, 9.9)), ("first_aired", "int", (1990, 2023)))),
    "team": ("teams", (("league", "enum", ("premier", "championship", "atlantic", "pacific")),
                       ("founded", "int", (1880, 2015)), ("wins", "int", (0, 40)), ("city", "text", CITIES))),
    "player": ("players", (("position", "enum", ("goalkeeper", "defender", "midfielder", "forward")),
                           ("age", "int", (17, 39)), ("goals", "int", (0, 45)), ("nationality", "text", COUNTRIES))),
    "match": ("matches", (("status", "enum", ("scheduled", "live", "finished")), ("home_score", "int", (0, 6)),
                          ("away_score", "int", (0, 6)), ("venue", "text", CITIES))),
    "stock": ("stocks", (("exchange", "enum", ("NYSE", "NASDAQ", "LSE", "TSE")), ("price", "float", (2.0, 950.0)),
                         ("volume", "int", (1000, 9000000)), ("sector", "text", ("energy", "retail", "health", "tech")))),
    "fund": ("funds", (("risk", "enum", ("low", "medium", "high")), ("aum_millions", "int", (5, 90000)),
                       ("return_pct", "float", (-12.0, 35.0)))),
    "coin": ("coins", (("consensus", "enum", ("proof_of_work", "proof_of_stake", "delegated")),
                       ("price_usd", "float", (0.01, 60000.0)), ("market_cap_rank", "int", (1, 900)))),
    "recipe": ("recipes", (("cuisine", "enum", ("italian", "mexican", "thai", "indian", "french")),
                           ("calories", "int", (120, 1400)), ("prep_minutes", "int", (5, 180)), ("rating", "float", (1.0, 5.0)))),
    "restaurant": ("restaurants", (("price_level", "enum", ("cheap", "moderate", "expensive")),
                                   ("rating", "float", (1.0, 5.0)), ("seats", "int", (10, 300)), ("city", "text", CITIES))),
    "hotel": ("hotels", (("stars", "enum", ("two", "three", "four", "five")), ("nightly_rate", "float", (35.0, 900.0)),
                         ("rooms", "int", (8, 600)), ("city", "text", CITIES))),
    "flight": ("flights", (("cabin", "enum", ("economy", "premium", "business")), ("duration_minutes", "int", (40, 900)),
                           ("fare", "float", (39.0, 3200.0)), ("destination", "text", CITIES))),
    "station": ("stations", (("climate", "enum", ("arid", "temperate", "tropical", "polar")),
                             ("temperature_c", "float", (-30.0, 45.0)), ("humidity_pct", "int", (5, 100)), ("city", "text", CITIES))),
    "track": ("tracks", (("genre", "enum", ("pop", "jazz", "rock", "electronic", "folk")), ("duration_seconds", "int", (90, 600)),
                         ("plays", "int", (100, 90000000)), ("artist_country", "text", COUNTRIES))),
    "artist": ("artists", (("genre", "enum", ("pop", "jazz", "rock", "electronic", "folk")), ("followers", "int", (100, 50000000)),
                           ("albums", "int", (1, 30)), ("country", "text", COUNTRIES))),
    "game": ("games", (("platform", "enum", ("pc", "console", "mobile")), ("release_year", "int", (1990, 2023)),
                       ("score", "float", (1.0, 10.0)), ("studio_city", "text", CITIES))),
    "course": ("courses", (("level", "enum", ("beginner", "intermediate", "advanced")), ("hours", "int", (2, 120)),
                           ("enrolled", "int", (10, 200000)), ("language", "text", ("English", "Spanish", "French", "German")))),
    "workout": ("workouts", (("intensity", "enum", ("low", "moderate", "vigorous")), ("minutes", "int", (10, 120)),
                             ("calories_burned", "int", (50, 1200)))),
    "product": ("products", (("condition", "enum", ("new", "used", "refurbished")), ("price", "float", (1.0, 2500.0)),
                             ("stock", "int", (0, 5000)), ("brand_country", "text", COUNTRIES))),
    "company": ("companies", (("industry", "enum", ("software", "manufacturing", "retail", "services")),
                              ("employees", "int", (3, 250000)), ("revenue_millions", "float", (0.1, 90000.0)), ("city", "text", CITIES))),
    "place": ("places", (("type", "enum", ("park", "museum", "market", "harbour")), ("visitors_per_year", "int", (1000, 9000000)),
                         ("latitude", "float", (-60.0, 70.0)), ("city", "text", CITIES))),
    "route": ("routes", (("mode", "enum", ("bus", "train", "ferry", "tram")), ("distance_km", "float", (1.0, 900.0)),
                         ("stops", "int", (2, 60)), ("origin", "text", CITIES))),
    "article": ("articles", (("section", "enum", ("politics", "science", "culture", "business")), ("words", "int", (200, 6000)),
                             ("shares", "int", (0, 500000)), ("source_country", "text", COUNTRIES))),
    "profile": ("profiles", (("visibility", "enum", ("public", "private", "friends")), ("followers", "int", (0, 2000000)),
                             ("posts", "int", (0, 20000)), ("city", "text", CITIES))),
    "mailbox": ("mailboxes", (("provider", "enum", ("postly", "mailora", "inboxo")), ("messages", "int", (0, 90000)),
                              ("quota_mb", "int", (100, 50000)))),
    "image": ("images", (("format", "enum", ("png", "jpeg", "webp", "gif")), ("width", "int", (64, 8000)),
                         ("height", "int", (64, 8000)), ("size_kb", "float", (1.0, 9000.0)))),
    "phrase": ("phrases", (("language", "enum", ("english", "spanish", "french", "german", "japanese")),
                           ("characters", "int", (3, 400)), ("sentiment", "float", (-1.0, 1.0)))),
    "job": ("jobs", (("contract", "enum", ("full_time", "part_time", "freelance")), ("salary", "int", (18000, 260000)),
                     ("openings", "int", (1, 40)), ("city", "text", CITIES))),
    "event": ("events", (("kind", "enum", ("concert", "conference", "festival", "exhibition")), ("capacity", "int", (50, 90000)),
                         ("ticket_price", "float", (0.0, 400.0)), ("city", "text", CITIES))),
    "shipment": ("shipments", (("status", "enum", ("created", "in_transit", "delivered", "returned")),
                               ("weight_kg", "float", (0.1, 900.0)), ("days_in_transit", "int", (0, 40)), ("destination", "text", CITIES))),
    "campaign": ("campaigns", (("channel", "enum", ("search", "social", "display", "video")), ("budget", "int", (100, 900000)),
                               ("clicks", "int", (0, 5000000)), ("ctr_pct", "float", (0.1, 25.0)))),
    "model": ("models", (("task", "enum", ("classification", "translation", "detection", "generation")),
                         ("parameters_millions", "int", (1, 70000)), ("accuracy", "float", (0.3, 0.99)))),
    "record": ("records", (("state", "enum", ("active", "archived", "pending")), ("size", "int", (1, 100000)),
                           ("score", "float", (0.0, 100.0)), ("region", "text", COUNTRIES))),
    "device": ("devices", (("status", "enum", ("online", "offline", "maintenance")), ("battery_pct", "int", (0, 100)),
                           ("uptime_hours", "int", (0, 20000)), ("location", "text", CITIES))),
    "plant": ("plants", (("source", "enum", ("solar", "wind", "hydro", "gas")), ("capacity_mw", "float", (1.0, 4000.0)),
                         ("units", "int", (1, 400)), ("country", "text", COUNTRIES))),
    "payment": ("payments", (("status", "enum", ("pending", "settled", "refunded")), ("amount", "float", (1.0, 20000.0)),
                             ("installments", "int", (1, 24)), ("currency_country", "text", COUNTRIES))),
    "reward": ("rewards", (("tier", "enum", ("bronze", "silver", "gold")), ("points", "int", (10, 100000)),
                           ("redemptions", "int", (0, 9000)))),
    "host": ("hosts", (("risk", "enum", ("low", "medium", "high")), ("open_ports", "int", (0, 200)),
                       ("reports", "int", (0, 5000)), ("country", "text", COUNTRIES))),
    "file": ("files", (("tier", "enum", ("hot", "cool", "archive")), ("size_mb", "float", (0.01, 90000.0)),
                       ("versions", "int", (1, 80)))),
    "disease": ("conditions", (("severity", "enum", ("mild", "moderate", "severe")), ("prevalence_per_100k", "int", (1, 30000)),
                               ("recovery_days", "int", (1, 365)))),
    "element": ("elements", (("phase", "enum", ("solid", "liquid", "gas")), ("atomic_mass", "float", (1.0, 290.0)),
                             ("discovered", "int", (1600, 2010)))),
}

#: The kinds each category's tools serve; other categories draw from GENERIC_KINDS.
CATEGORY_KINDS: dict[str, tuple[str, ...]] = {
    "Sports": ("team", "player", "match"), "Finance": ("stock", "fund"), "Financial": ("stock", "fund", "company"),
    "Movies": ("movie", "series"), "Entertainment": ("movie", "series", "event"), "Food": ("recipe", "restaurant"),
    "Travel": ("hotel", "flight", "place"), "Weather": ("station",), "Music": ("track", "artist"), "Gaming": ("game",),
    "Education": ("course",), "Health_and_Fitness": ("workout", "recipe"), "eCommerce": ("product",),
    "Commerce": ("product", "payment"), "Business": ("company",), "Business_Software": ("company", "record"),
    "Location": ("place",), "Mapping": ("place", "route"), "Transportation": ("route", "flight"), "Science": ("element",),
    "Medical": ("disease",), "News_Media": ("article",), "Social": ("profile",), "Email": ("mailbox",),
    "SMS": ("profile",), "Video_Images": ("image",), "Visual_Recognition": ("image", "model"),
    "Translation": ("phrase",), "Text_Analysis": ("phrase", "article"), "Jobs": ("job",), "Events": ("event",),
    "Logistics": ("shipment",), "Advertising": ("campaign",), "Artificial_Intelligence_Machine_Learning": ("model",),
    "Devices": ("device",), "Monitoring": ("device", "host"), "Energy": ("plant",), "Payments": ("payment",),
    "Reward": ("reward",), "Cybersecurity": ("host",), "Storage": ("file",), "Cryptocurrency": ("coin",),
    "Cryptography": ("host", "file"),
}
GENERIC_KINDS = ("record", "file", "profile", "company", "product")

SYLLABLES = ("ka", "lo", "ri", "ven", "tor", "mi", "sa", "del", "na", "bre", "zu", "quin", "fa", "mor", "lin",
             "pe", "dra", "so", "vel", "gan", "ti", "ro", "cle", "mu", "xan", "bel", "yo", "har", "ne", "sto")
TOOL_SUFFIXES = ("API", "Hub", "Data", "Pro", "Live", "Finder", "Base", "Connect", "Central", "Insights")
COLLECTION_THEMES = ("Trip planning", "Home and family", "Small business", "Fan zone", "Healthy living",
                     "Media studio", "Developer toolbox", "Market watch", "City guide", "Learning corner")

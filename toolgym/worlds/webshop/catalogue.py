"""The vocabulary of the generated WebShop catalogue: product types in WebShop's five categories.

Each :class:`ProductType` is one kind of product as WebShop's scrape grouped them: the search
``query`` the product was scraped with (WebShop's ``query`` field), its Amazon-style
``product_category`` path, the nouns of its name (``noun``: what spaCy tags NOUN / PROPN in a
title, which decides the reward's title score), adjectives that may precede it, the attribute
phrases products of the type have (WebShop's ``Attributes``, the phrases instructions ask for)
and its customization options (``{name: values}``). Values of one option never collide under
the reward's matching (distinct colours after normalisation, distinct sizes), so attribute and
option matching discriminates between products and between option choices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: WebShop's five categories, as its ``category`` field names them.
CATEGORIES = ("beauty", "food", "fashion", "furniture", "electronics")

COLORS = ("black", "white", "navy blue", "light grey", "dark brown", "beige", "red", "pink", "green",
          "olive", "purple", "ivory", "charcoal", "teal", "burgundy", "khaki", "gold", "silver",
          "yellow", "orange", "lavender", "coral", "mint", "walnut")
APPAREL_SIZES = ("x-small", "small", "medium", "large", "x-large", "xx-large", "3x-large")
SHOE_SIZES = ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "11", "12")
BED_SIZES = ("twin", "full", "queen", "king", "california king")
PACKS = ("pack of 1", "pack of 2", "pack of 3", "pack of 4", "pack of 6", "pack of 12")


@dataclass(frozen=True)
class ProductType:
    query: str
    path: str
    noun: str
    adjectives: tuple[str, ...]
    attributes: tuple[str, ...]
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)
    details: tuple[str, ...] = ()  # trailing title details ("20 inch", "for women")


def _t(query, path, noun, adjectives, attributes, options=None, details=()):
    return ProductType(query, path, noun, tuple(adjectives.split(", ")) if adjectives else (),
                       tuple(attributes.split(", ")), dict(options or {}), tuple(details))


BEAUTY = "Beauty & Personal Care"
FOOD = "Grocery & Gourmet Food"
FASHION = "Clothing, Shoes & Jewelry"
FURNITURE = "Home & Kitchen"
ELECTRONICS = "Electronics"

PRODUCT_TYPES: dict[str, tuple[ProductType, ...]] = {
    "beauty": (
        _t("hair extensions", f"{BEAUTY} › Hair Care › Hair Extensions, Wigs & Accessories › Extensions",
           "hair extension", "clip-in, straight, wavy, thick",
           "natural looking, long lasting, easy to use, high quality, heat resistant, double weft, human hair",
           {"color": ("black", "dark brown", "beige", "light grey", "burgundy", "gold"),
            "size": ("14 inch", "16 inch", "18 inch", "20 inch", "22 inch")}, ("for women", "full head")),
        _t("face moisturizer", f"{BEAUTY} › Skin Care › Face › Creams & Moisturizers › Face Moisturizers",
           "face moisturizer cream", "hydrating, daily, night, oil-free",
           "dry skin, sensitive skin, cruelty free, paraben free, fragrance free, hyaluronic acid, fine lines",
           {"size": ("1.7 fl oz", "2 fl oz", "3.4 fl oz", "6.76 fl oz")}, ("with spf 30", "for men and women")),
        _t("shampoo", f"{BEAUTY} › Hair Care › Shampoo & Conditioner › Shampoos",
           "shampoo", "volumizing, clarifying, moisturizing, herbal",
           "sulfate free, paraben free, natural ingredients, dry hair, hair growth, color treated, tea tree",
           {"scent": ("coconut", "lavender", "argan oil", "rosemary mint", "unscented"),
            "size": ("8 fl oz", "12 fl oz", "16 fl oz", "33.8 fl oz")}, ("for dry damaged hair",)),
        _t("nail polish", f"{BEAUTY} › Foot, Hand & Nail Care › Nail Art & Polish › Nail Polish",
           "nail polish set", "gel, glossy, matte, quick dry",
           "long lasting, non toxic, easy apply, salon quality, high gloss, chip resistant",
           {"color": ("red", "pink", "coral", "lavender", "teal", "ivory", "black")}, ("6 bottles",)),
        _t("makeup brushes", f"{BEAUTY} › Tools & Accessories › Makeup Brushes & Tools › Brush Sets",
           "makeup brush set", "professional, synthetic, travel, soft",
           "easy clean, cruelty free, high quality, travel size, soft bristles, storage case",
           {"color": ("black", "pink", "gold", "silver", "purple")}, ("with case", "12 pieces")),
        _t("deodorant", f"{BEAUTY} › Personal Care › Deodorants & Antiperspirants › Deodorant",
           "deodorant stick", "natural, aluminum-free, clinical, fresh",
           "aluminum free, sensitive skin, long lasting, baking soda free, travel size, vegan",
           {"scent": ("bright citrus", "lavender", "cedarwood", "unscented", "coconut"),
            "size": ("2.6 ounce", "3 ounce", "pack of 2", "pack of 3")}, ("for sensitive skin",)),
    ),
    "food": (
        _t("protein bars", f"{FOOD} › Snack Foods › Bars › Protein Bars",
           "protein bar", "chewy, crunchy, low carb, plant-based",
           "gluten free, high protein, low sugar, keto friendly, non gmo, dairy free, individually wrapped",
           {"flavor": ("chocolate peanut butter", "cookie dough", "sea salt caramel", "blueberry", "almond coconut"),
            "size": PACKS[2:]}, ("snack bars",)),
        _t("coffee beans", f"{FOOD} › Beverages › Coffee, Tea & Cocoa › Coffee › Whole Coffee Beans",
           "coffee bean", "dark roast, medium roast, organic, whole",
           "fair trade, usda organic, non gmo, low acid, single origin, kosher",
           {"size": ("12 ounce", "2 pound", "5 pound"), "flavor": ("french roast", "colombian", "espresso",
                                                                    "breakfast blend", "hazelnut")}, ("bag",)),
        _t("beef jerky", f"{FOOD} › Snack Foods › Jerky & Dried Meats › Beef Jerky",
           "beef jerky", "smoked, teriyaki, peppered, original",
           "high protein, shelf stable, gluten free, low fat, ready to eat, keto friendly, no preservatives",
           {"flavor": ("teriyaki", "original", "sweet hot", "black pepper", "smoked bacon"),
            "size": ("3.25 ounce", "10 ounce", "pack of 2", "pack of 4")}, ("snack",)),
        _t("herbal tea", f"{FOOD} › Beverages › Coffee, Tea & Cocoa › Tea › Herbal",
           "herbal tea bag", "caffeine free, organic, calming, detox",
           "caffeine free, usda organic, non gmo, gluten free, individually wrapped, kosher",
           {"flavor": ("chamomile", "peppermint", "ginger lemon", "hibiscus", "rooibos"),
            "size": ("20 count", "40 count", "100 count")}, ("tea bags",)),
        _t("olive oil", f"{FOOD} › Pantry Staples › Cooking Oils, Vinegars & Sprays › Oils › Olive",
           "olive oil", "extra virgin, cold pressed, italian, greek",
           "cold pressed, non gmo, gluten free, kosher, glass bottle, first cold",
           {"size": ("16.9 fl oz", "25.3 fl oz", "33.8 fl oz", "1 gallon")}, ("bottle",)),
        _t("gummy candy", f"{FOOD} › Snacks & Sweets › Candy & Chocolate › Gummy Candy",
           "gummy candy", "sour, fruity, vegan, sugar free",
           "gluten free, fat free, individually wrapped, non gmo, party supplies, natural flavors",
           {"flavor": ("assorted fruit", "sour cherry", "watermelon", "peach rings", "blue raspberry"),
            "size": ("5 ounce", "2 pound", "5 pound")}, ("bulk bag",)),
    ),
    "fashion": (
        _t("button down shirt", f"{FASHION} › Men › Clothing › Shirts › Casual Button-Down Shirts",
           "button down shirt", "slim fit, casual, oxford, linen",
           "slim fit, long sleeve, machine wash, button closure, wrinkle free, cotton blend, regular fit",
           {"color": ("white", "light grey", "navy blue", "black", "khaki", "pink"), "size": APPAREL_SIZES},
           ("for men",)),
        _t("sweatpants", f"{FASHION} › Women › Clothing › Active › Active Pants › Sweatpants",
           "jogger sweatpants", "relaxed fit, high waist, fleece, athletic",
           "relaxed fit, elastic waistband, drawstring closure, machine wash, side pockets, moisture wicking",
           {"color": ("black", "charcoal", "olive", "burgundy", "navy blue", "beige"), "size": APPAREL_SIZES},
           ("for women", "workout lounge")),
        _t("running shoes", f"{FASHION} › Men › Shoes › Athletic › Running › Road Running",
           "running shoe sneaker", "lightweight, breathable, mesh, cushioned",
           "rubber sole, arch support, non slip, lace up, memory foam, wide width",
           {"color": ("black", "white", "navy blue", "red", "light grey", "teal"), "size": SHOE_SIZES},
           ("for men", "walking tennis")),
        _t("summer dress", f"{FASHION} › Women › Clothing › Dresses › Casual",
           "maxi dress", "floral, boho, sleeveless, v-neck",
           "machine wash, short sleeve, pull on, high waist, polyester spandex, hand wash",
           {"color": ("red", "navy blue", "green", "yellow", "pink", "black", "white"), "size": APPAREL_SIZES},
           ("for women", "with pockets")),
        _t("winter jacket", f"{FASHION} › Women › Clothing › Coats, Jackets & Vests › Down Jackets & Parkas",
           "puffer jacket coat", "hooded, quilted, waterproof, warm",
           "zipper closure, water resistant, machine wash, faux fur, long sleeve, windproof",
           {"color": ("black", "olive", "beige", "burgundy", "silver", "navy blue"), "size": APPAREL_SIZES},
           ("with hood",)),
        _t("sandals", f"{FASHION} › Women › Shoes › Sandals › Flat Sandals",
           "flat sandal", "strappy, leather, beach, slide",
           "rubber sole, ankle strap, open toe, arch support, non slip, memory foam",
           {"color": ("black", "beige", "gold", "silver", "white", "coral"), "size": SHOE_SIZES},
           ("for women",)),
    ),
    "furniture": (
        _t("ottoman bench", f"{FURNITURE} › Furniture › Living Room Furniture › Ottomans",
           "storage ottoman bench", "tufted, upholstered, folding, velvet",
           "space saving, living room, storage space, easy assemble, solid wood, faux leather",
           {"color": ("black", "beige", "light grey", "navy blue", "teal", "burgundy"),
            "size": ("30 inch", "43 inch", "100x45x45cm")}, ("footrest",)),
        _t("bedspread set", f"{FURNITURE} › Bedding › Quilts & Sets › Quilt Sets",
           "bedspread quilt set", "lightweight, reversible, microfiber, cotton",
           "machine wash, all season, easy clean, soft microfiber, fade resistant, 3 pieces",
           {"color": ("ivory", "light grey", "navy blue", "teal", "burgundy", "beige"), "size": BED_SIZES},
           ("with pillow shams",)),
        _t("sectional sofa", f"{FURNITURE} › Furniture › Living Room Furniture › Sofas & Couches › Sectional Sofas",
           "sectional sofa couch", "modular, l-shaped, convertible, mid century",
           "living room, easy assemble, mid century, high density, solid wood, removable cushions",
           {"color": ("light grey", "dark brown", "navy blue", "beige", "green", "charcoal")},
           ("with chaise",)),
        _t("scented candle", f"{FURNITURE} › Home Décor Products › Candles & Holders › Candles › Jar Candles",
           "scented candle", "soy, luxury, aromatherapy, jar",
           "lead free, long lasting, soy wax, natural soy, gift set, hand poured",
           {"scent": ("lavender", "vanilla bean", "sea salt", "cedarwood", "fresh linen"),
            "size": ("8 oz", "12 oz", "16 oz")}, ("gift for women",)),
        _t("pillow cover", f"{FURNITURE} › Home Décor Products › Decorative Pillows, Inserts & Covers › Throw Pillow Covers",
           "throw pillow cover", "decorative, boho, linen, hand painted",
           "hand painted, machine wash, hidden zipper, living room, double sided, set of 2",
           {"color": ("ivory", "teal", "mint", "yellow", "coral", "charcoal"),
            "size": ("16x16 inch", "18x18 inch", "20x20 inch", "24x24 inch")}, ("for couch sofa",)),
        _t("bookshelf", f"{FURNITURE} › Furniture › Home Office Furniture › Bookcases",
           "bookshelf bookcase", "industrial, ladder, corner, tall",
           "easy assemble, storage space, space saving, metal frame, engineered wood, living room",
           {"color": ("walnut", "black", "white", "dark brown"),
            "size": ("3 tier", "4 tier", "5 tier")}, ("for home office",)),
    ),
    "electronics": (
        _t("usb microphone", f"{ELECTRONICS} › Musical Instruments › Microphones & Accessories › Microphones",
           "usb microphone", "condenser, podcast, streaming, gaming",
           "noise cancelling, plug play, high sensitivity, mute button, easy use, usb port",
           {"color": ("black", "white", "pink", "silver")}, ("for pc mac",)),
        _t("bluetooth speaker", f"{ELECTRONICS} › Portable Audio & Video › Portable Speakers & Docks › Portable Bluetooth Speakers",
           "bluetooth speaker", "portable, waterproof, wireless, outdoor",
           "easy carry, high power, wireless bluetooth, long battery life, stereo sound, usb charging",
           {"color": ("black", "red", "teal", "light grey", "navy blue")}, ("with bass",)),
        _t("hdmi cable", f"{ELECTRONICS} › Computers & Accessories › Cables & Accessories › Cables & Interconnects › HDMI Cables",
           "hdmi cable", "braided, 4k, 8k, high speed",
           "high speed, gold plated, plug play, ultra hd, ethernet channel, aluminum alloy",
           {"color": ("black", "purple", "silver", "red"), "size": ("3 feet", "6 feet", "10 feet", "15 feet")},
           ("cord",)),
        _t("wireless earbuds", f"{ELECTRONICS} › Headphones, Earbuds & Accessories › Headphones & Earbuds › Earbud Headphones",
           "wireless earbud headphone", "true wireless, sport, in-ear, bluetooth 5.3",
           "noise cancelling, fast charging, water resistant, touch control, long battery life, hands free",
           {"color": ("black", "white", "navy blue", "pink", "mint")}, ("with charging case",)),
        _t("phone charger", f"{ELECTRONICS} › Cell Phones & Accessories › Accessories › Chargers & Power Adapters › Wall Chargers",
           "usb wall charger", "fast, dual port, foldable, compact",
           "fast charging, usb port, compact size, overcharge protection, travel size, plug play",
           {"color": ("black", "white"), "size": ("20w", "30w", "65w")}, ("power adapter",)),
        _t("remote control", f"{ELECTRONICS} › Television & Video › Accessories › Remote Controls",
           "replacement remote control", "universal, infrared, backlit, smart tv",
           "easy use, batteries included, plug play, long range, home theater, no programming",
           {}, ("for tv", "for blu-ray dvd")),
    ),
}

#: Brand names: made-up words, capitalised (spaCy tags them PROPN: they count as title nouns).
BRAND_SYLLABLES = ("lu", "ma", "ra", "vel", "no", "ki", "zen", "to", "ria", "bel", "cor", "da", "fi", "xo",
                   "qui", "sa", "mi", "ten", "or", "ly", "va", "pe", "gri", "hal", "su", "nex", "ova", "tri")

OPENERS = ("i am looking for", "i need", "i want", "find me", "im looking for", "i would like",
           "can you find me", "i'm searching for", "help me find", "i wish to buy")

# -- product text ------------------------------------------------------------------------------
# Sentences of descriptions, bullet points and reviews, per category, filled with a product's
# {brand}, {noun} and {query}. None names an attribute phrase of PRODUCT_TYPES: a product's text
# holds only the attribute phrases its generator puts there (title, highlights, bullet heads),
# so the reward's attribute matches in text are those of the product.
#: Titles keep these words upper-case.
ACRONYMS = frozenset({"usb", "hdmi", "usda", "gmo", "spf", "tv", "pc", "4k", "8k", "dvd", "hd", "oz"})

DESCRIPTION_SENTENCES: dict[str, tuple[str, ...]] = {
    "beauty": (
        "The {brand} {noun} is part of a daily routine that takes a few minutes.",
        "Each {noun} is made in small batches and checked before it is packed.",
        "Dermatologists helped choose the formula, and it is tested on real people, never on animals.",
        "It suits every age and works at home or when you are away.",
        "A little goes a long way, so one {noun} lasts for weeks.",
        "The packaging is recyclable and sealed for freshness.",
        "Pair it with the rest of the {brand} line for the best results.",
        "It makes a thoughtful gift for a friend, a partner or yourself.",
    ),
    "food": (
        "The {brand} {noun} is made from simple ingredients you can read on the label.",
        "Enjoy it at breakfast, as an afternoon treat or on the go.",
        "Every batch is tasted before it leaves the kitchen.",
        "It is packed fresh and sealed to keep its taste until the last serving.",
        "Share it with family and friends, or keep it in your pantry for later.",
        "Our {query} come from growers we have worked with for years.",
        "Store it in a cool, dry place and close the package after opening.",
        "It makes a welcome gift for anyone who loves good food.",
    ),
    "fashion": (
        "The {brand} {noun} is cut to move with you from morning to night.",
        "The fabric keeps its shape and colour wash after wash.",
        "Wear it to work, on weekends or when you travel.",
        "Check the size chart in the pictures to find your fit.",
        "Every seam is stitched to last through years of wear.",
        "It goes with jeans, skirts and most of what is already in your closet.",
        "Made for every season, it layers well when the weather turns.",
        "It makes a great gift for birthdays and holidays.",
    ),
    "furniture": (
        "The {brand} {noun} brings comfort and style to any room.",
        "All parts and tools are in the box, with instructions that take you step by step.",
        "The frame is built to carry daily use for years.",
        "Its clean lines suit modern, rustic and classic interiors.",
        "Wipe it with a damp cloth to keep it looking new.",
        "Measure your space before ordering: the dimensions are in the pictures.",
        "It arrives packed in a sturdy box to keep every part safe.",
        "It makes a thoughtful housewarming gift.",
    ),
    "electronics": (
        "The {brand} {noun} works out of the box with most devices.",
        "Its compact design fits in a bag or a drawer.",
        "Every unit is tested before it ships.",
        "The quick start guide in the box walks you through setup in minutes.",
        "It is built from durable materials that stand up to daily use.",
        "Works with Windows, macOS, iOS and Android.",
        "Our support team answers any question within one business day.",
        "It comes with an 18-month warranty.",
    ),
}
BULLET_SENTENCES: dict[str, tuple[str, ...]] = {
    "beauty": ("Gentle enough to use every day.", "Leaves a clean, fresh feel without residue.",
               "A formula you can feel good about.", "Visible results after a few weeks of use.",
               "Made without harsh chemicals.", "Loved by customers with every kind of skin and hair."),
    "food": ("A taste the whole family will enjoy.", "Made from carefully chosen ingredients.",
             "Great on its own or as part of a recipe.", "A smart choice for busy days.",
             "Packed to keep it fresh.", "Made in a certified facility."),
    "fashion": ("Comfortable from the first wear.", "Holds its shape and colour.",
                "Easy to dress up or down.", "Soft on the skin all day long.",
                "Designed for an easy, flattering fit.", "Made to last season after season."),
    "furniture": ("Sturdy and built to last.", "Fits neatly into small spaces.",
                  "Looks good in any room of the house.", "Simple to put together with the included tools.",
                  "Easy to keep clean.", "Made from carefully selected materials."),
    "electronics": ("Simple setup, no extra software needed.", "Reliable performance day after day.",
                    "Works with the devices you already own.", "Compact and easy to carry.",
                    "Built from durable materials.", "Backed by our friendly support team."),
}
WHAT_YOU_GET = ("and a quick start guide", "and a thank-you card from our team", "in a gift-ready box",
                "and our friendly customer service")
#: Review titles and bodies by score (1 to 5).
REVIEW_TITLES: dict[int, tuple[str, ...]] = {
    1: ("Disappointed", "Not as described", "Would not buy again"),
    2: ("Not great", "Expected more", "Just okay for the price"),
    3: ("It's fine", "Does the job", "Decent, with a few flaws"),
    4: ("Very good", "Happy with it", "Good value"),
    5: ("Love it!", "Exactly what I wanted", "Highly recommend"),
}
REVIEW_BODIES: dict[int, tuple[str, ...]] = {
    1: ("The {noun} I received looked nothing like the pictures. I sent it back.",
        "It stopped being any use after a week. Save your money."),
    2: ("The {noun} is okay, but the quality is lower than I hoped for.",
        "It arrived late and the packaging was damaged. The product itself is average."),
    3: ("It does what it says. Nothing special, but no complaints either.",
        "Good {noun} for the price, though I have had better."),
    4: ("Nice {noun}, arrived quickly and well packed. I would buy it again.",
        "Works well and looks good. Took off one star for the price."),
    5: ("This {noun} is exactly what I was looking for. Great quality!",
        "I bought one for myself and another as a gift. Both of us love it."),
}

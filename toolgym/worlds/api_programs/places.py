"""US cities shared by the Home Search and Trip Booking worlds (the tasks' locations)."""

US_CITIES = (
    "Akron", "Albuquerque", "Anchorage", "Arlington", "Atlanta", "Austin", "Bakersfield", "Baltimore",
    "Baton Rouge", "Birmingham", "Boise", "Boston", "Buffalo", "Cape Coral", "Chandler", "Charlotte",
    "Chicago", "Cincinnati", "Colorado Springs", "Columbus", "Corpus Christi", "Dallas", "Denver",
    "Des Moines", "Detroit", "Durham", "El Paso", "Fort Collins", "Fort Worth", "Fremont", "Fresno",
    "Glendale", "Grand Rapids", "Henderson", "Honolulu", "Indianapolis", "Irvine", "Jersey City",
    "Kansas City", "Lakewood", "Las Vegas", "Lincoln", "Little Rock", "Los Angeles", "Louisville",
    "Madison", "Memphis", "Mesa", "Miami", "Milwaukee", "Minneapolis", "Nashville", "New Orleans",
    "New York City", "Oakland", "Oklahoma City", "Omaha", "Ontario", "Orlando", "Palo Alto",
    "Philadelphia", "Phoenix", "Pittsburgh", "Portland", "Raleigh", "Reno", "Richmond", "Sacramento",
    "Salt Lake City", "San Antonio", "San Diego", "San Francisco", "San Jose", "Seattle",
    "Sioux Falls", "Spokane", "St. Louis", "Tampa", "Tucson", "Tulsa",
)

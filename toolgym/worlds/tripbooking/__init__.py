"""Trip Booking (SambaNova ToolBench): book tickets and hotels with a program of API calls."""

from toolgym.worlds.tripbooking.tools import TripBookingAPI
from toolgym.worlds.tripbooking.world import TripBookingWorld

__all__ = ["TripBookingAPI", "TripBookingWorld"]

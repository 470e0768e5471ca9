"""Tables of the AppBench apps. Column names are the Schema-Guided Dialogue slot names, so
an API's arguments and returned fields map one to one onto columns.

Booleans and counts are stored as the strings SGD uses ('True', '3'), because that is how
the apps take and return them.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class AppBase(DeclarativeBase):
    pass


def _id() -> Mapped[int]:
    return mapped_column(Integer, primary_key=True)


# -- Rents (RentalCars_3 + RideSharing_2) ---------------------------------------------------
class RentalCar(AppBase):
    __tablename__ = "rental_cars"
    id: Mapped[int] = _id()
    city: Mapped[str] = mapped_column(String)
    pickup_location: Mapped[str] = mapped_column(String)
    car_type: Mapped[str] = mapped_column(String)
    car_name: Mapped[str] = mapped_column(String)
    price_per_day: Mapped[int] = mapped_column(Integer)


class CarReservation(AppBase):
    __tablename__ = "car_reservations"
    id: Mapped[int] = _id()
    car_id: Mapped[int] = mapped_column(ForeignKey("rental_cars.id"))
    start_date: Mapped[str] = mapped_column(String)
    pickup_time: Mapped[str] = mapped_column(String)
    end_date: Mapped[str] = mapped_column(String)
    add_insurance: Mapped[str] = mapped_column(String)


class Ride(AppBase):
    __tablename__ = "rides"
    id: Mapped[int] = _id()
    destination: Mapped[str] = mapped_column(String)
    ride_type: Mapped[str] = mapped_column(String)
    number_of_seats: Mapped[str] = mapped_column(String)
    ride_fare: Mapped[float] = mapped_column(Float)
    wait_time: Mapped[int] = mapped_column(Integer)


# -- Hotels (Hotels_2) ----------------------------------------------------------------------
class House(AppBase):
    __tablename__ = "houses"
    id: Mapped[int] = _id()
    where_to: Mapped[str] = mapped_column(String)
    address: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)
    rating: Mapped[float] = mapped_column(Float)
    max_adults: Mapped[int] = mapped_column(Integer)
    price_per_night: Mapped[int] = mapped_column(Integer)
    has_laundry_service: Mapped[str] = mapped_column(String)


class HouseBooking(AppBase):
    __tablename__ = "house_bookings"
    id: Mapped[int] = _id()
    house_id: Mapped[int] = mapped_column(ForeignKey("houses.id"))
    number_of_adults: Mapped[str] = mapped_column(String)
    check_in_date: Mapped[str] = mapped_column(String)
    check_out_date: Mapped[str] = mapped_column(String)
    total_price: Mapped[int] = mapped_column(Integer)


# -- Services (Services_1 stylists + Services_4 therapists) ----------------------------------
class Stylist(AppBase):
    __tablename__ = "stylists"
    id: Mapped[int] = _id()
    stylist_name: Mapped[str] = mapped_column(String)
    city: Mapped[str] = mapped_column(String)
    street_address: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)
    average_rating: Mapped[float] = mapped_column(Float)
    is_unisex: Mapped[str] = mapped_column(String)


class Therapist(AppBase):
    __tablename__ = "therapists"
    id: Mapped[int] = _id()
    therapist_name: Mapped[str] = mapped_column(String)
    city: Mapped[str] = mapped_column(String)
    type: Mapped[str] = mapped_column(String)
    address: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)


class Appointment(AppBase):
    __tablename__ = "appointments"
    id: Mapped[int] = _id()
    provider_kind: Mapped[str] = mapped_column(String)  # "stylist" | "therapist"
    provider_name: Mapped[str] = mapped_column(String)
    appointment_date: Mapped[str] = mapped_column(String)
    appointment_time: Mapped[str] = mapped_column(String)


# -- Restaurants (Restaurants_2) ------------------------------------------------------------
class Restaurant(AppBase):
    __tablename__ = "restaurants"
    id: Mapped[int] = _id()
    restaurant_name: Mapped[str] = mapped_column(String)
    location: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    price_range: Mapped[str] = mapped_column(String)
    has_seating_outdoors: Mapped[str] = mapped_column(String)
    has_vegetarian_options: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)
    rating: Mapped[float] = mapped_column(Float)
    address: Mapped[str] = mapped_column(String)
    seats: Mapped[int] = mapped_column(Integer)


class TableReservation(AppBase):
    __tablename__ = "table_reservations"
    id: Mapped[int] = _id()
    restaurant_id: Mapped[int] = mapped_column(ForeignKey("restaurants.id"))
    date: Mapped[str] = mapped_column(String)
    time: Mapped[str] = mapped_column(String)
    number_of_seats: Mapped[str] = mapped_column(String)


# -- Movies (Movies_1 showtimes + Movies_3 reviews) ------------------------------------------
class Showing(AppBase):
    __tablename__ = "showings"
    id: Mapped[int] = _id()
    movie_name: Mapped[str] = mapped_column(String)
    genre: Mapped[str] = mapped_column(String)
    theater_name: Mapped[str] = mapped_column(String)
    street_address: Mapped[str] = mapped_column(String)
    location: Mapped[str] = mapped_column(String)
    show_type: Mapped[str] = mapped_column(String)
    show_date: Mapped[str] = mapped_column(String)
    show_time: Mapped[str] = mapped_column(String)
    price: Mapped[int] = mapped_column(Integer)
    seats_left: Mapped[int] = mapped_column(Integer)


class MovieTicket(AppBase):
    __tablename__ = "movie_tickets"
    id: Mapped[int] = _id()
    showing_id: Mapped[int] = mapped_column(ForeignKey("showings.id"))
    number_of_tickets: Mapped[str] = mapped_column(String)


class MovieReview(AppBase):
    __tablename__ = "movie_reviews"
    id: Mapped[int] = _id()
    movie_title: Mapped[str] = mapped_column(String)
    genre: Mapped[str] = mapped_column(String)
    percent_rating: Mapped[int] = mapped_column(Integer)
    cast: Mapped[str] = mapped_column(String)
    directed_by: Mapped[str] = mapped_column(String)


# -- Trains (Trains_1) ----------------------------------------------------------------------
class Train(AppBase):
    __tablename__ = "trains"
    id: Mapped[int] = _id()
    from_city: Mapped[str] = mapped_column("from", String)
    to_city: Mapped[str] = mapped_column("to", String)
    from_station: Mapped[str] = mapped_column(String)
    to_station: Mapped[str] = mapped_column(String)
    date_of_journey: Mapped[str] = mapped_column(String)
    journey_start_time: Mapped[str] = mapped_column(String)
    fare_value: Mapped[int] = mapped_column(Integer)
    seats_left: Mapped[int] = mapped_column(Integer)


class TrainTicket(AppBase):
    __tablename__ = "train_tickets"
    id: Mapped[int] = _id()
    train_id: Mapped[int] = mapped_column(ForeignKey("trains.id"))
    number_of_adults: Mapped[str] = mapped_column(String)
    travel_class: Mapped[str] = mapped_column("class", String)
    trip_protection: Mapped[str] = mapped_column(String)
    total: Mapped[int] = mapped_column(Integer)


# -- Events (Events_3) ----------------------------------------------------------------------
class Event(AppBase):
    __tablename__ = "events"
    id: Mapped[int] = _id()
    event_type: Mapped[str] = mapped_column(String)
    event_name: Mapped[str] = mapped_column(String)
    date: Mapped[str] = mapped_column(String)
    time: Mapped[str] = mapped_column(String)
    price_per_ticket: Mapped[int] = mapped_column(Integer)
    city: Mapped[str] = mapped_column(String)
    venue: Mapped[str] = mapped_column(String)
    venue_address: Mapped[str] = mapped_column(String)
    tickets_left: Mapped[int] = mapped_column(Integer)


class EventTicket(AppBase):
    __tablename__ = "event_tickets"
    id: Mapped[int] = _id()
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    number_of_tickets: Mapped[str] = mapped_column(String)


# -- Travel (Travel_1) ----------------------------------------------------------------------
class Attraction(AppBase):
    __tablename__ = "attractions"
    id: Mapped[int] = _id()
    location: Mapped[str] = mapped_column(String)
    attraction_name: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)
    free_entry: Mapped[str] = mapped_column(String)
    good_for_kids: Mapped[str] = mapped_column(String)


# -- Buses (Buses_3) ------------------------------------------------------------------------
class Bus(AppBase):
    __tablename__ = "buses"
    id: Mapped[int] = _id()
    from_city: Mapped[str] = mapped_column(String)
    to_city: Mapped[str] = mapped_column(String)
    from_station: Mapped[str] = mapped_column(String)
    to_station: Mapped[str] = mapped_column(String)
    departure_date: Mapped[str] = mapped_column(String)
    departure_time: Mapped[str] = mapped_column(String)
    price: Mapped[int] = mapped_column(Integer)
    category: Mapped[str] = mapped_column(String)
    seats_left: Mapped[int] = mapped_column(Integer)


class BusTicket(AppBase):
    __tablename__ = "bus_tickets"
    id: Mapped[int] = _id()
    bus_id: Mapped[int] = mapped_column(ForeignKey("buses.id"))
    num_passengers: Mapped[str] = mapped_column(String)
    additional_luggage: Mapped[str] = mapped_column(String)


# -- Flights (Flights_4) --------------------------------------------------------------------
class Flight(AppBase):
    __tablename__ = "flights"
    id: Mapped[int] = _id()
    origin_airport: Mapped[str] = mapped_column(String)
    destination_airport: Mapped[str] = mapped_column(String)
    departure_date: Mapped[str] = mapped_column(String)
    departure_time: Mapped[str] = mapped_column(String)
    arrival_time: Mapped[str] = mapped_column(String)
    airlines: Mapped[str] = mapped_column(String)
    is_nonstop: Mapped[str] = mapped_column(String)
    economy_price: Mapped[int] = mapped_column(Integer)


# -- Payment (Payment_1) --------------------------------------------------------------------
class Contact(AppBase):
    __tablename__ = "contacts"
    id: Mapped[int] = _id()
    name: Mapped[str] = mapped_column(String)


class PaymentRecord(AppBase):
    __tablename__ = "payments"
    id: Mapped[int] = _id()
    kind: Mapped[str] = mapped_column(String)  # "payment" | "request"
    payment_method: Mapped[str | None] = mapped_column(String, nullable=True)
    amount: Mapped[float] = mapped_column(Float)
    receiver: Mapped[str] = mapped_column(String)
    private_visibility: Mapped[str] = mapped_column(String)


class Wallet(AppBase):
    __tablename__ = "wallet"
    id: Mapped[int] = _id()
    payment_method: Mapped[str] = mapped_column(String)
    balance: Mapped[float] = mapped_column(Float)


# -- Music (Music_3) ------------------------------------------------------------------------
class Song(AppBase):
    __tablename__ = "songs"
    id: Mapped[int] = _id()
    track: Mapped[str] = mapped_column(String)
    artist: Mapped[str] = mapped_column(String)
    album: Mapped[str] = mapped_column(String)
    genre: Mapped[str] = mapped_column(String)
    year: Mapped[str] = mapped_column(String)


class Playback(AppBase):
    __tablename__ = "playbacks"
    id: Mapped[int] = _id()
    song_id: Mapped[int] = mapped_column(ForeignKey("songs.id"))
    device: Mapped[str] = mapped_column(String)


# -- Weather (Weather_1) --------------------------------------------------------------------
class WeatherReport(AppBase):
    __tablename__ = "weather"
    id: Mapped[int] = _id()
    city: Mapped[str] = mapped_column(String)
    date: Mapped[str] = mapped_column(String)
    precipitation: Mapped[int] = mapped_column(Integer)
    humidity: Mapped[int] = mapped_column(Integer)
    wind: Mapped[int] = mapped_column(Integer)
    temperature: Mapped[int] = mapped_column(Integer)


# -- distractors: Homes (Homes_2), Media (Media_3) -------------------------------------------
class Property(AppBase):
    __tablename__ = "properties"
    id: Mapped[int] = _id()
    area: Mapped[str] = mapped_column(String)
    intent: Mapped[str] = mapped_column(String)
    property_name: Mapped[str] = mapped_column(String)
    address: Mapped[str] = mapped_column(String)
    phone_number: Mapped[str] = mapped_column(String)
    number_of_beds: Mapped[str] = mapped_column(String)
    number_of_baths: Mapped[str] = mapped_column(String)
    has_garage: Mapped[str] = mapped_column(String)
    in_unit_laundry: Mapped[str] = mapped_column(String)
    price: Mapped[int] = mapped_column(Integer)


class Visit(AppBase):
    __tablename__ = "visits"
    id: Mapped[int] = _id()
    property_id: Mapped[int] = mapped_column(ForeignKey("properties.id"))
    visit_date: Mapped[str] = mapped_column(String)


class Film(AppBase):
    __tablename__ = "films"
    id: Mapped[int] = _id()
    title: Mapped[str] = mapped_column(String)
    genre: Mapped[str] = mapped_column(String)
    starring: Mapped[str] = mapped_column(String)


class FilmPlayback(AppBase):
    __tablename__ = "film_playbacks"
    id: Mapped[int] = _id()
    film_id: Mapped[int] = mapped_column(ForeignKey("films.id"))
    subtitle_language: Mapped[str] = mapped_column(String)

"""BFCL's TwitterAPI (``posting_api``): one account's tweets, comments, retweets and follows.

State (BFCL's attributes): ``username``, ``password``, ``authenticated``, ``tweets`` (id ->
tweet dict; the scenario's string keys become ints as BFCL converts them), ``comments``,
``retweets``, ``following_list`` and ``tweet_counter``. Tables: ``tweets``, ``comment_threads``
and ``comments``, ``retweeters`` and ``retweets``, ``follows``; the account and the counter are
settings rows. Dict keys are found with Python's ``==`` (``1.0`` finds tweet ``1``), as in BFCL.
Outputs and errors word for word as BFCL's class returns them. One difference: BFCL's ``post_tweet`` defaults ``tags`` and
``mentions`` to one shared list object, so ``mention`` on a tweet posted without mentions
extends every such tweet (in the model's and the ground truth's instance alike); here each
tweet gets its own empty list.
"""

from __future__ import annotations

from toolgym.worlds.bfcl.models import Comment, CommentThread, Follow, Retweet, Retweeter, Tweet
from toolgym.worlds.bfcl.world import TableAPI


class _NotGiven(tuple):
    """The default of an optional list argument: an explicit ``None`` stays ``None``, as in BFCL."""


_NOT_GIVEN = _NotGiven()


class TwitterAPI(TableAPI):
    class_name = "TwitterAPI"
    doc_file = "posting_api"
    default_state = {"username": "john", "password": "john123", "authenticated": False, "tweets": {},
                     "comments": {}, "retweets": {}, "following_list": ["alice", "bob"], "tweet_counter": 0}
    settings = ("username", "password", "authenticated", "tweet_counter")

    def _load_tables(self, values: dict) -> None:
        self._insert_all(Tweet, [(int(key), tweet) for key, tweet in values["tweets"].items()])
        self._load_grouped(CommentThread, Comment, values["comments"])
        self._load_grouped(Retweeter, Retweet, values["retweets"])
        self._insert_all(Follow, [(username,) for username in values["following_list"]])

    def _read_tables(self) -> dict:
        return {"tweets": self._tweets(), "comments": self._grouped(CommentThread, Comment),
                "retweets": self._grouped(Retweeter, Retweet), "following_list": self._following()}

    def _tweets(self) -> dict:
        return {tweet_id: tweet for _, tweet_id, tweet in self._rows(Tweet)}

    def _tweet_row(self, tweet_id) -> tuple[int, dict] | None:
        """``(position, tweet)`` of the tweet ``tweet_id`` names, found as a dict finds a key."""
        return {key: (position, tweet) for position, key, tweet in self._rows(Tweet)}.get(tweet_id)

    def _following(self) -> list:
        return [username for _, username in self._rows(Follow)]

    def _login_error(self, action: str) -> dict:
        return {"error": f"User not authenticated. Please authenticate before {action}."}

    def authenticate_twitter(self, username: str, password: str) -> dict:
        """Authenticate a user with username and password."""
        if username == self._get("username") and password == self._get("password"):
            self._set("authenticated", True)
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict:
        """Get the login status of the current user."""
        return {"login_status": bool(self._get("authenticated"))}

    def post_tweet(self, content: str, tags: list = _NOT_GIVEN, mentions: list = _NOT_GIVEN) -> dict:
        """Post a tweet for the authenticated user."""
        if not self._get("authenticated"):
            return self._login_error("posting")
        counter = self._get("tweet_counter")
        tweet = {"id": counter, "username": self._get("username"), "content": content,
                 "tags": [] if tags is _NOT_GIVEN else tags, "mentions": [] if mentions is _NOT_GIVEN else mentions}
        existing = self._tweet_row(counter)
        if existing:  # a dict keeps the key it had and its place, and takes the new value
            self._update(Tweet, existing[0], record=tweet)
        else:
            self._append(Tweet, tweet_id=counter, record=tweet)
        self._set("tweet_counter", counter + 1)
        return tweet

    def retweet(self, tweet_id: int) -> dict:
        """Retweet a tweet for the authenticated user."""
        if not self._get("authenticated"):
            return self._login_error("retweeting")
        if tweet_id not in self._tweets():
            return {"error": f"Tweet with ID {tweet_id} not found."}
        username = self._get("username")
        group = self._group(Retweeter, username)
        if group is None:
            group = self._append(Retweeter, username=username)
        if tweet_id in self._grouped(Retweeter, Retweet)[username]:
            return {"retweet_status": "Already retweeted"}
        self._append(Retweet, retweeter=group, tweet_id=tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict:
        """Comment on a tweet for the authenticated user."""
        if not self._get("authenticated"):
            return self._login_error("commenting")
        if tweet_id not in self._tweets():
            return {"error": f"Tweet with ID {tweet_id} not found."}
        group = self._group(CommentThread, tweet_id)
        if group is None:
            group = self._append(CommentThread, tweet_id=tweet_id)
        self._append(Comment, thread=group, record={"username": self._get("username"), "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list) -> dict:
        """Mention specified users in a tweet."""
        row = self._tweet_row(tweet_id)
        if row is None:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        position, tweet = row
        tweet["mentions"].extend(mentioned_usernames)  # a fresh copy of the row's record
        self._update(Tweet, position, record=tweet)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict:
        """Follow a user for the authenticated user."""
        if not self._get("authenticated"):
            return self._login_error("following")
        if username_to_follow in self._following():
            return {"follow_status": False}
        self._append(Follow, username=username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict:
        """List all users that the authenticated user is following."""
        if not self._get("authenticated"):
            return self._login_error("listing following")
        return {"following_list": self._following()}

    def unfollow_user(self, username_to_unfollow: str) -> dict:
        """Unfollow a user for the authenticated user."""
        if not self._get("authenticated"):
            return self._login_error("unfollowing")
        # list.remove takes the first equal name
        position = next((position for position, username in self._rows(Follow) if username == username_to_unfollow),
                        None)
        if position is None:
            return {"unfollow_status": False}
        self._delete(Follow, position)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict:
        """Retrieve a specific tweet."""
        row = self._tweet_row(tweet_id)
        if row is None:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return row[1]

    def get_user_tweets(self, username: str) -> list:
        """Retrieve all tweets from a specific user."""
        return [tweet for tweet in self._tweets().values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list:
        """Search for tweets containing a specific keyword."""
        wanted = keyword.lower()
        return [tweet for tweet in self._tweets().values()
                if wanted in tweet["content"].lower() or wanted in [tag.lower() for tag in tweet["tags"]]]

    def get_tweet_comments(self, tweet_id: int) -> list:
        """Retrieve all comments for a specific tweet."""
        if tweet_id not in self._tweets():
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self._grouped(CommentThread, Comment).get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict:
        """Get statistics for a specific user."""
        me = self._get("username")
        return {"tweet_count": sum(tweet["username"] == username for tweet in self._tweets().values()),
                "following_count": len(self._following()) if username == me else 0,
                "retweet_count": len(self._grouped(Retweeter, Retweet).get(username, []))}

"""BFCL's TwitterAPI (``posting_api``): one account's tweets, comments, retweets and follows.

State (BFCL's attributes): ``username``, ``password``, ``authenticated``, ``tweets`` (id ->
tweet dict; the scenario's string keys become ints as BFCL converts them), ``comments``,
``retweets``, ``following_list`` and ``tweet_counter``. Outputs and errors word for word as
BFCL's class returns them. One difference: BFCL's ``post_tweet`` defaults ``tags`` and
``mentions`` to one shared list object, so ``mention`` on a tweet posted without mentions
extends every such tweet (in the model's and the ground truth's instance alike); here each
tweet gets its own empty list.
"""

from __future__ import annotations

from toolgym.worlds.bfcl.api import BfclAPI


class _NotGiven(tuple):
    """The default of an optional list argument: an explicit ``None`` stays ``None``, as in BFCL."""


_NOT_GIVEN = _NotGiven()


class TwitterAPI(BfclAPI):
    class_name = "TwitterAPI"
    doc_file = "posting_api"
    default_state = {"username": "john", "password": "john123", "authenticated": False, "tweets": {},
                     "comments": {}, "retweets": {}, "following_list": ["alice", "bob"], "tweet_counter": 0}

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        super().load_scenario(scenario, long_context)
        self.tweets = {int(key): value for key, value in self.tweets.items()}

    def _login_error(self, action: str) -> dict:
        return {"error": f"User not authenticated. Please authenticate before {action}."}

    def authenticate_twitter(self, username: str, password: str) -> dict:
        """Authenticate a user with username and password."""
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict:
        """Get the login status of the current user."""
        return {"login_status": bool(self.authenticated)}

    def post_tweet(self, content: str, tags: list = _NOT_GIVEN, mentions: list = _NOT_GIVEN) -> dict:
        """Post a tweet for the authenticated user."""
        if not self.authenticated:
            return self._login_error("posting")
        tweet = {"id": self.tweet_counter, "username": self.username, "content": content,
                 "tags": [] if tags is _NOT_GIVEN else tags, "mentions": [] if mentions is _NOT_GIVEN else mentions}
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict:
        """Retweet a tweet for the authenticated user."""
        if not self.authenticated:
            return self._login_error("retweeting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        mine = self.retweets.setdefault(self.username, [])
        if tweet_id in mine:
            return {"retweet_status": "Already retweeted"}
        mine.append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict:
        """Comment on a tweet for the authenticated user."""
        if not self.authenticated:
            return self._login_error("commenting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.comments.setdefault(tweet_id, []).append({"username": self.username, "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list) -> dict:
        """Mention specified users in a tweet."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict:
        """Follow a user for the authenticated user."""
        if not self.authenticated:
            return self._login_error("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict:
        """List all users that the authenticated user is following."""
        if not self.authenticated:
            return self._login_error("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict:
        """Unfollow a user for the authenticated user."""
        if not self.authenticated:
            return self._login_error("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict:
        """Retrieve a specific tweet."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list:
        """Retrieve all tweets from a specific user."""
        return [tweet for tweet in self.tweets.values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list:
        """Search for tweets containing a specific keyword."""
        wanted = keyword.lower()
        return [tweet for tweet in self.tweets.values()
                if wanted in tweet["content"].lower() or wanted in [tag.lower() for tag in tweet["tags"]]]

    def get_tweet_comments(self, tweet_id: int) -> list:
        """Retrieve all comments for a specific tweet."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict:
        """Get statistics for a specific user."""
        return {"tweet_count": sum(tweet["username"] == username for tweet in self.tweets.values()),
                "following_count": len(self.following_list) if username == self.username else 0,
                "retweet_count": len(self.retweets.get(username, []))}

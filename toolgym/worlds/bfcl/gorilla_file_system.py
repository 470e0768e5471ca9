"""BFCL's GorillaFileSystem: a small Unix-like file tree driven by ls, cd, mv, cp, grep and friends.

State: ``root``, the tree, and ``long_context``. The tree is three tables (``folders``,
``files`` and ``entries``: :mod:`toolgym.worlds.bfcl.models`) that keep the object identities
BFCL's behaviour depends on. A folder's contents are a *listing*, and ``mv`` gives a moved
folder's new node the very listing of the old one, whose subfolders still name the folder they
were made in as their parent (so ``cd ..`` from one of them goes back there); ``cp`` of a folder
makes a new listing holding the same files and folders (writing to a file in one shows in
both). :meth:`GorillaFileSystem.state` reads the tables back into :class:`FolderView` and
:class:`FileView` objects, equal when their names and contents are (BFCL's
``Directory.__eq__``), which is what the state check compares; the working directory is a
private setting, as in BFCL. The long-context variant appends BFCL's long text to most files
and fills every folder without subfolders with BFCL's thirty extra files. Outputs and errors
word for word as BFCL's class returns them (``mkdir``, ``touch`` and a successful ``echo`` to a
file return ``None``, printed ``None``; ``echo`` onto a folder fails as BFCL's does).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from toolgym.worlds.bfcl.api import long_context_data
from toolgym.worlds.bfcl.models import Entry, File, Folder, dump, load
from toolgym.worlds.bfcl.world import TableAPI

INVALID_NAME_CHARACTERS = '|/\\?%*:"><'
#: Entries one walk of the tree (``find``, ``du``) passes at most, and characters of the paths
#: ``find`` returns: a folder copied into itself holds itself, so its walk never ends (BFCL's
#: recursive walk stops there with RecursionError).
MAX_WALK_ENTRIES = 10_000
MAX_FIND_CHARS = 1_000_000
#: Characters of a folder's text (its repr), which is for reading, not grading.
MAX_REPR_CHARS = 100_000
# The entries of the listing a folder shows (its ``listing`` and theirs hold the same JSON text).
LISTING_QUERY = ("SELECT e.position, e.name, e.folder, e.file FROM entries AS e "
                 "JOIN folders AS f ON e.listing = f.listing WHERE f.position = ?")


class FileView:
    """A file as the state check sees it (BFCL's ``File``)."""

    def __init__(self, name: str, content: str) -> None:
        self.name = name
        self.content = content

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileView) and self.name == other.name and self.content == other.content


class FolderView:
    """A folder as the state check sees it (BFCL's ``Directory``); ``contents`` is shared as the listing is."""

    def __init__(self, name: str, parent: Optional["FolderView"]) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, Union[FileView, "FolderView"]] = {}

    def __repr__(self) -> str:
        """BFCL's text of the tree, written from a stack (a tree may be thousands of folders deep)
        and cut after :data:`MAX_REPR_CHARS` characters (a folder may hold itself)."""
        parts: list[str] = []
        written = 0
        pending: list[Any] = [self]  # views still to write and the text between them, last first
        while pending:
            item = pending.pop()
            if isinstance(item, FolderView):
                parent = item.parent.name if item.parent else None
                text = f"<Directory: {item.name}, Parent: {parent}, Contents: {{"
                between: list[Any] = []
                for index, (name, child) in enumerate(item.contents.items()):
                    between += [", " if index else "", f"{name!r}: ", child]
                pending += reversed([*between, "}>"])
            else:
                text = item if isinstance(item, str) else repr(item)
            parts.append(text)
            written += len(text)
            if written > MAX_REPR_CHARS:
                return "".join(parts)[:MAX_REPR_CHARS] + "..."
        return "".join(parts)

    def __eq__(self, other: object) -> bool:
        """Equal names and contents, compared through the tree without recursion (a tree may be
        thousands of folders deep); a pair of folders met again on a cycle counts as equal."""
        pending, seen = [(self, other)], set()
        while pending:
            ours, theirs = pending.pop()
            if not isinstance(theirs, FolderView):
                return False
            if (id(ours), id(theirs)) in seen:
                continue
            seen.add((id(ours), id(theirs)))
            if ours.name != theirs.name or ours.contents.keys() != theirs.contents.keys():
                return False
            for name, item in ours.contents.items():
                counterpart = theirs.contents[name]
                if isinstance(item, FolderView):
                    pending.append((item, counterpart))
                elif item != counterpart:
                    return False
        return True


class GorillaFileSystem(TableAPI):
    class_name = "GorillaFileSystem"
    doc_file = "gorilla_file_system"
    #: The entries a running call looked up, until it writes (None outside a call): BFCL's checks
    #: look a name up again and again (``name in contents``, then ``contents[name]``).
    _found: dict | None = None

    def _run(self, name: str, arguments: dict, rollback: bool) -> str:
        self._found = {}
        try:
            return super()._run(name, arguments, rollback)
        finally:
            self._found = None

    def _append(self, model, **values) -> int:
        self._forget_found()
        return super()._append(model, **values)

    def _update(self, model, position: int, **values) -> None:
        self._forget_found()
        super()._update(model, position, **values)

    def _delete(self, model, position: int) -> None:
        self._forget_found()
        super()._delete(model, position)

    def _forget_found(self) -> None:
        if self._found:
            self._found.clear()

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self._long_context = long_context
        folders, files, entries = [("/", None, 1)], [], []
        if "root" in scenario:
            root_name = next(iter(scenario["root"]))
            folders = [(root_name, None, 1)]
            self._load_tree(scenario["root"][root_name]["contents"], folders, files, entries)
        self._insert_all(Folder, folders)
        self._insert_all(File, files)
        self._insert_all(Entry, entries)
        self._sql.executemany("INSERT INTO settings (api, name, value) VALUES (?, ?, ?)",
                              [(self.class_name, name, dump(value))
                               for name, value in (("root", 1), ("cwd", 1), ("long_context", long_context))])
        self._world.commit()

    def _load_tree(self, items: dict, folders: list, files: list, entries: list) -> None:
        """Rows for the scenario's ``items`` inside the root (positions count from 1 in each list):
        folders and files in the order BFCL's recursive load meets them, a folder's own entry after
        its contents, walked with a stack of the folders being filled."""
        extra = long_context_data() if self._long_context else None
        # (the folder's items left to load, its position, whether it has no subfolder, names in it)
        stack = [(iter(items.items()), 1, [True], set())]
        while stack:
            remaining, folder, leaf, names = stack[-1]
            for name, item in remaining:
                if item["type"] == "directory":
                    leaf[0] = False
                    folders.append((name, folder, len(folders) + 1))
                    names.add(name)
                    stack.append((iter(item["contents"].items()), len(folders), [True], set()))
                    break
                if item["type"] == "file":
                    content = item["content"]
                    if extra and name not in extra["FILES_TAIL_USED"]:
                        content += extra["FILE_CONTENT_EXTENSION"]
                    files.append((name, content))
                    entries.append((folder, name, None, len(files)))
                    names.add(name)
            else:  # the folder is full: the long-context files, then its entry in its parent
                stack.pop()
                if leaf[0] and extra:
                    for name in extra["POPULATE_FILE_EXTENSION"]:
                        if name in names:
                            raise ValueError(f"File '{name}' already exists in directory '{folders[folder - 1][0]}'.")
                        files.append((name, ""))
                        entries.append((folder, name, None, len(files)))
                        names.add(name)
                if stack:
                    name, parent, _ = folders[folder - 1]
                    entries.append((parent, name, folder, None))

    def state(self) -> dict[str, Any]:
        folders = {position: (name, parent, listing) for position, name, parent, listing in self._rows(Folder)}
        files = {position: (name, content) for position, name, content in self._rows(File)}
        listings: dict[int, list] = {}
        for _, listing, name, folder, file in self._rows(Entry):
            listings.setdefault(listing, []).append((name, folder, file))
        # Every folder's view, then every listing's one dict (each folder showing it holds that
        # very dict) and every file's one view: no walk of the tree, which may be deep or cyclic.
        views = {position: FolderView(name, None) for position, (name, _, _) in folders.items()}
        for position, (_, parent, _) in folders.items():
            if parent is not None:
                views[position].parent = views[parent]
        file_views = {position: FileView(*file) for position, file in files.items()}
        shown: dict[int, dict] = {}
        for position, (_, _, listing) in folders.items():
            if listing not in shown:
                shown[listing] = {name: views[child] if child is not None else file_views[file]
                                  for name, child, file in listings.get(listing, [])}
            views[position].contents = shown[listing]
        return {"root": views[self._get("root")], "long_context": self._get("long_context")}

    # -- the tree -------------------------------------------------------------------------
    def _folder(self, folder: int) -> tuple[Any, Any, int]:
        """``(name, parent, listing)`` of a folder."""
        return self._rows(Folder, "WHERE position = ?", (folder,))[0][1:]

    def _entry(self, folder: int, name) -> tuple | None:
        """``(position, name, folder, file)`` of ``name`` in the folder's contents, as ``name in contents`` finds it."""
        hash(name)  # an unhashable name fails as a dict lookup fails
        if type(name) is not str:  # every name in the tree is a string
            return None
        found = self._found
        if found is not None and (folder, name) in found:
            return found[folder, name]
        row = self._sql.execute(LISTING_QUERY + " AND e.name = ?", (folder, dump(name))).fetchone()
        entry = (row[0], *map(load, row[1:])) if row else None
        if found is not None:
            found[folder, name] = entry
        return entry

    def _item(self, folder: int, name) -> tuple[str, int] | None:
        """``("folder", id)`` or ``("file", id)`` that ``name`` names in the folder (``.``: the folder)."""
        if name == ".":
            return "folder", folder
        entry = self._entry(folder, name)
        if entry is None:
            return None
        return ("folder", entry[2]) if entry[2] is not None else ("file", entry[3])

    def _entries(self, folder: int) -> list[tuple]:
        """``(position, name, folder, file)`` of the folder's contents, in order."""
        return [(row[0], *map(load, row[1:]))
                for row in self._sql.execute(LISTING_QUERY + " ORDER BY e.position", (folder,))]

    def _add(self, folder: int, name, *, child: int | None = None, file: int | None = None) -> None:
        self._append(Entry, listing=self._folder(folder)[2], name=name, folder=child, file=file)

    def _add_file(self, folder: int, name, content="") -> None:
        if self._entry(folder, name) is not None:
            raise ValueError(f"File '{name}' already exists in directory '{self._folder(folder)[0]}'.")
        self._add(folder, name, file=self._append(File, name=name, content=content))

    def _add_folder(self, folder: int, name) -> int:
        if self._entry(folder, name) is not None:
            raise ValueError(f"Directory '{name}' already exists in directory '{self._folder(folder)[0]}'.")
        child = self._append(Folder, name=name, parent=folder, listing=None)
        self._update(Folder, child, listing=child)
        self._add(folder, name, child=child)
        return child

    def _pop(self, folder: int, name) -> None:
        self._delete(Entry, self._entry(folder, name)[0])

    def _file_content(self, name) -> tuple[int, Any] | None:
        """``(id, content)`` of the file ``name`` in the working directory (``None``: none, or a folder)."""
        entry = self._entry(self._get("cwd"), name)
        if entry is None or entry[3] is None:
            return None
        return entry[3], self._rows(File, "WHERE position = ?", (entry[3],))[0][2]

    def _resolve(self, path: Optional[str]) -> Union[int, dict]:
        cwd = self._get("cwd")
        if path is None or path == ".":
            return cwd
        if path == "/":
            return self._get("root")
        names = path.strip("/").split("/")
        folder = self._get("root") if path.startswith("/") else cwd
        for name in names:
            item = self._item(folder, name)
            if item is None or item[0] != "folder":
                return {"error": f"cd: '{path}': No such file or directory"}
            folder = item[1]
        return folder

    # -- the functions --------------------------------------------------------------------
    def pwd(self) -> dict:
        """Return the current working directory path."""
        names, folder = [], self._get("cwd")
        while folder is not None:  # BFCL's loop also stops at a name equal to the root object: never
            name, folder, _ = self._folder(folder)
            names.append(name)
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> dict:
        """List the contents of the current directory.

        Args:
            a: Also list hidden entries (names starting with a dot); False by default.
        """
        names = [name for _, name, _, _ in self._entries(self._get("cwd"))]
        return {"current_directory_content": names if a else [n for n in names if not n.startswith(".")]}

    def cd(self, folder: str) -> dict:
        """Change the current working directory to the specified folder.

        Args:
            folder: The folder to enter, one level at a time: a subfolder's name, .. or /.
        """
        folder = folder.rstrip("/") or "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {"error": f"cd: {folder}: Unsupported path. Only one folder level at a time is supported."}
        if folder == "..":
            parent = self._folder(self._get("cwd"))[1]
            # Only the root has no parent, so BFCL's third case ("No such directory") never comes.
            if parent is None:
                return {"error": "Current directory is already the root. Cannot go back."}
            self._set("cwd", parent)
            return {}
        target = self._resolve(folder)
        if isinstance(target, dict):
            return target
        self._set("cwd", target)
        return {"current_working_directory": self._folder(target)[0]}

    @staticmethod
    def _valid(name: str) -> bool:
        return not any(c in name for c in INVALID_NAME_CHARACTERS)

    def mkdir(self, dir_name: str) -> Optional[dict]:
        """Create a new directory in the current directory.

        Args:
            dir_name: Name of the new folder, made in the current directory (no path).
        """
        if not self._valid(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        cwd = self._get("cwd")
        if self._entry(cwd, dir_name) is not None:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._add_folder(cwd, dir_name)
        return None

    def touch(self, file_name: str) -> Optional[dict]:
        """Create a new file of any extension in the current directory.

        Args:
            file_name: Name of the new file, made in the current directory (no path).
        """
        if not self._valid(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        cwd = self._get("cwd")
        if self._entry(cwd, file_name) is not None:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._add_file(cwd, file_name)
        return None

    def echo(self, content: str, file_name: Optional[str] = None) -> Optional[dict]:
        """Write content to a file at current directory or display it in the terminal.

        Args:
            content: The text to write or show.
            file_name: A file in the current directory to write the text to; when None the text is shown in the terminal.
        """
        if file_name is None:
            return {"terminal_output": content}
        if not self._valid(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:
            return {"terminal_output": content}
        cwd = self._get("cwd")
        if self._entry(cwd, file_name) is None:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        kind, item = self._item(cwd, file_name)
        if kind == "folder":  # BFCL calls the folder's _write, which folders lack
            raise AttributeError("'Directory' object has no attribute '_write'")
        self._update(File, item, content=content)
        return None

    def cat(self, file_name: str) -> dict:
        """Display the contents of a file of any extension from currrent directory.

        Args:
            file_name: Name of a file in the current directory (no path).
        """
        if not self._valid(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        cwd = self._get("cwd")
        if self._entry(cwd, file_name) is None:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        kind, item = self._item(cwd, file_name)
        if kind == "file":
            return {"file_content": self._rows(File, "WHERE position = ?", (item,))[0][2]}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def find(self, path: str = ".", name: Optional[str] = None) -> dict:
        """Find any file or directories under specific path that contain name in its file name.

        Args:
            path: The folder to search from; the current directory (.) by default.
            name: Part of the names to look for; every entry when None.
        """
        target = self._resolve(path)
        if isinstance(target, dict):
            message = target.get("error", "")
            return {"error": message.replace("cd:", "find:", 1)} if message.startswith("cd:") else target
        matches, characters, base = [], 0, path.rstrip("/")
        for names, length, item_name, _, _ in self._walk(target):
            if name is None or name in item_name:
                characters += len(base) + length
                if characters > MAX_FIND_CHARS:
                    raise ValueError(f"find: the matches under '{path}' pass {MAX_FIND_CHARS} characters")
                matches.append("/".join([base, *names, item_name]))
        return {"matches": matches}

    def _walk(self, folder: int):
        """``(names, length, name, folder, file)`` of every entry below ``folder``, in the order of
        BFCL's recursive walk (an entry, then what it holds), with a stack instead of recursion:
        ``names`` are the folders on the way down (a list the walk goes on changing) and ``length``
        the characters of the entry's path after them. More than :data:`MAX_WALK_ENTRIES` is a
        ``ValueError``."""
        stack = [iter(self._entries(folder))]
        names: list[str] = []
        lengths = [0]  # characters of the path to each folder on the way down
        passed = 0
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                lengths.pop()
                if names:
                    names.pop()
                continue
            passed += 1
            if passed > MAX_WALK_ENTRIES:
                raise ValueError(f"the tree below this folder holds more than {MAX_WALK_ENTRIES} entries "
                                 f"(a folder copied into itself holds itself)")
            _, item_name, child, file = entry
            length = lengths[-1] + 1 + len(item_name)
            yield names, length, item_name, child, file
            if child is not None:
                stack.append(iter(self._entries(child)))
                names.append(item_name)
                lengths.append(length)

    def wc(self, file_name: str, mode: str = "l") -> dict:
        """Count the number of lines, words, and characters in a file of any extension from current directory.

        Args:
            file_name: Name of a file in the current directory.
            mode: What to count: l for lines (the default), w for words, c for characters.
        """
        if mode not in ["l", "w", "c"]:
            return {"error": f"wc: invalid mode '{mode}'"}
        found = self._file_content(file_name)
        if found is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        content = found[1]
        if mode == "l":
            return {"count": len(content.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(content.split()), "type": "words"}
        return {"count": len(content), "type": "characters"}

    def sort(self, file_name: str) -> dict:
        """Sort the contents of a file line by line.

        Args:
            file_name: Name of a file in the current directory.
        """
        found = self._file_content(file_name)
        if found is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(found[1].splitlines()))}

    def grep(self, file_name: str, pattern: str) -> dict:
        """Search for lines in a file of any extension at current directory that contain the specified pattern.

        Args:
            file_name: Name of a file in the current directory (no path).
            pattern: The text the lines must contain.
        """
        found = self._file_content(file_name)
        if found is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in found[1].splitlines() if pattern in line]}

    def du(self, human_readable: bool = False) -> dict:
        """Estimate the disk usage of a directory and its contents.

        Args:
            human_readable: Give the size in units such as KB and MB instead of bytes; False by default.
        """
        total = sum(len(self._rows(File, "WHERE position = ?", (file,))[0][2].encode("utf-8"))
                    for _, _, _, child, file in self._walk(self._get("cwd")) if child is None)
        if not human_readable:
            return {"disk_usage": f"{total} bytes"}
        for unit in ["B", "KB", "MB", "GB", "TB"]:
            if total < 1024:
                return {"disk_usage": f"{total:.2f} {unit}"}
            total /= 1024
        return {"disk_usage": f"{total:.2f} PB"}

    def tail(self, file_name: str, lines: int = 10) -> dict:
        """Display the last part of a file of any extension.

        Args:
            file_name: Name of a file in the current directory (no path).
            lines: How many lines to show from the end of the file; 10 by default.
        """
        found = self._file_content(file_name)
        if found is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        content = found[1].splitlines()
        if lines > len(content):
            lines = len(content)
        return {"last_lines": "\n".join(content[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> dict:
        """Compare two files of any extension line by line at the current directory.

        Args:
            file_name1: Name of the first file, in the current directory.
            file_name2: Name of the second file, in the current directory.
        """
        first, second = self._file_content(file_name1), self._file_content(file_name2)
        if first is None or second is None:
            return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}
        changed = [f"- {a}\n+ {b}" for a, b in zip(first[1].splitlines(), second[1].splitlines()) if a != b]
        return {"diff_lines": "\n".join(changed)}

    def mv(self, source: str, destination: str) -> dict:
        """Move a file or directory from one location to another.

        Args:
            source: Name of the file or folder to move, in the current directory.
            destination: A folder in the current directory to move it into, or else its new name (no path).
        """
        cwd = self._get("cwd")
        if self._entry(cwd, source) is None:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        item = self._item(cwd, source)
        if "/" in destination:
            return {"error": "mv: path not allowed in destination. Provide only a file or directory name."}
        if self._entry(cwd, destination) is not None:
            kind, target = self._item(cwd, destination)
            if kind != "folder":
                return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
            if self._entry(target, source) is not None:
                return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
            self._pop(cwd, source)
            self._place(item, target, source, share=True)
            return {"result": f"'{source}' moved to '{destination}/{source}'"}
        self._pop(cwd, source)
        self._place(item, cwd, destination, share=True)
        return {"result": f"'{source}' moved to '{destination}'"}

    def _place(self, item: tuple[str, int], folder: int, name, share: bool) -> None:
        """A new node ``name`` in ``folder`` holding ``item``'s content (a folder: its very listing
        with ``share``, else a new listing of the same files and folders)."""
        kind, node = item
        if kind == "file":
            self._add_file(folder, name, self._rows(File, "WHERE position = ?", (node,))[0][2])
            return
        child = self._add_folder(folder, name)
        listing = self._folder(node)[2]
        if share:
            self._update(Folder, child, listing=listing)
        else:
            for _, item_name, grandchild, file in self._entries(node):
                self._append(Entry, listing=child, name=item_name, folder=grandchild, file=file)

    def rm(self, file_name: str) -> dict:
        """Remove a file or directory.

        Args:
            file_name: Name of the file or folder to remove.
        """
        cwd = self._get("cwd")
        if self._entry(cwd, file_name) is None:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        self._pop(cwd, file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict:
        """Remove a directory at current directory.

        Args:
            dir_name: Name of the empty folder to remove, in the current directory.
        """
        cwd = self._get("cwd")
        if self._entry(cwd, dir_name) is None:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        kind, item = self._item(cwd, dir_name)
        if kind != "folder":
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if self._entries(item):
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._pop(cwd, dir_name)
        return {"result": f"'{dir_name}' removed"}

    def cp(self, source: str, destination: str) -> dict:
        """Copy a file or directory from one location to another.

        Args:
            source: Name of the file or folder to copy, in the current directory.
            destination: A folder in the current directory to copy it into, or else the copy's name (no path).
        """
        cwd = self._get("cwd")
        if self._entry(cwd, source) is None:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        item = self._item(cwd, source)
        if "/" in destination:
            return {"error": "cp: path not allowed in destination. Provide only a file or directory name."}
        if self._entry(cwd, destination) is not None:
            kind, target = self._item(cwd, destination)
            if kind != "folder":
                return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
            # BFCL looks for "<destination>/<source>" among the folder's names, which never holds one,
            # so copying onto an existing name fails in add_file/add_folder instead.
            self._place(item, target, source, share=False)
            return {"result": f"'{source}' copied to '{destination}/{source}'"}
        self._place(item, cwd, destination, share=False)
        return {"result": f"'{source}' copied to '{destination}'"}

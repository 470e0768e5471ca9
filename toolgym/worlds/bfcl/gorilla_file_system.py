"""BFCL's GorillaFileSystem: a small Unix-like file tree driven by ls, cd, mv, cp, grep and friends.

State: ``root``, the tree, and ``long_context``. The tree is a tree of :class:`Folder` and
:class:`FileNode` objects rather than rows, because BFCL's behaviour depends on object
identity that rows would lose: a moved folder keeps its children, whose parent is still the
folder they were made in (so ``cd ..`` from one of them goes back there), and a copied folder
shares its children with the original (writing to a file in one shows in both). Two folders
are equal when their names and contents are (BFCL's ``Directory.__eq__``), which is what the
state check compares; the working directory is private, as in BFCL. The long-context variant
appends BFCL's long text to most files and fills every folder without subfolders with BFCL's
thirty extra files. Outputs and errors word for word as BFCL's class returns them (``mkdir``,
``touch`` and a successful ``echo`` to a file return ``None``, printed ``None``).
"""

from __future__ import annotations

from typing import Optional, Union

from toolgym.worlds.bfcl.api import BfclAPI, long_context_data

INVALID_NAME_CHARACTERS = '|/\\?%*:"><'


class FileNode:
    def __init__(self, name: str, content: str = "") -> None:
        self.name = name
        self.content = content

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileNode) and self.name == other.name and self.content == other.content


class Folder:
    def __init__(self, name: str, parent: Optional["Folder"] = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, Union[FileNode, "Folder"]] = {}

    def add_file(self, name: str, content: str = "") -> None:
        if name in self.contents:
            raise ValueError(f"File '{name}' already exists in directory '{self.name}'.")
        self.contents[name] = FileNode(name, content)

    def add_folder(self, name: str) -> None:
        if name in self.contents:
            raise ValueError(f"Directory '{name}' already exists in directory '{self.name}'.")
        self.contents[name] = Folder(name, self)

    def item(self, name: str) -> Union[FileNode, "Folder", None]:
        return self if name == "." else self.contents.get(name)

    def __repr__(self) -> str:
        return f"<Directory: {self.name}, Parent: {self.parent.name if self.parent else None}, Contents: {self.contents}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Folder) and self.name == other.name and self.contents == other.contents


class GorillaFileSystem(BfclAPI):
    class_name = "GorillaFileSystem"
    doc_file = "gorilla_file_system"

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self.long_context = long_context
        self.root = Folder("/", None)
        if "root" in scenario:
            root_name = next(iter(scenario["root"]))
            self.root = self._load_folder(scenario["root"][root_name]["contents"], Folder(root_name, None))
        self._cwd = self.root

    def _load_folder(self, entries: dict, folder: Folder) -> Folder:
        leaf = True
        extra = long_context_data() if self.long_context else None
        for name, entry in entries.items():
            if entry["type"] == "directory":
                leaf = False
                folder.contents[name] = self._load_folder(entry["contents"], Folder(name, folder))
            elif entry["type"] == "file":
                content = entry["content"]
                if extra and name not in extra["FILES_TAIL_USED"]:
                    content += extra["FILE_CONTENT_EXTENSION"]
                folder.contents[name] = FileNode(name, content)
        if leaf and extra:
            for name in extra["POPULATE_FILE_EXTENSION"]:
                folder.add_file(name)
        return folder

    def _resolve(self, path: Optional[str]) -> Union[Folder, dict]:
        if path is None or path == ".":
            return self._cwd
        if path == "/":
            return self.root
        names = path.strip("/").split("/")
        folder = self.root if path.startswith("/") else self._cwd
        for name in names:
            child = folder.item(name)
            if not isinstance(child, Folder):
                return {"error": f"cd: '{path}': No such file or directory"}
            folder = child
        return folder

    def _file(self, name: str) -> Optional[FileNode]:
        item = self._cwd.contents.get(name) if name in self._cwd.contents else None
        return item if isinstance(item, FileNode) else None

    def pwd(self) -> dict:
        """Return the current working directory path."""
        names, folder = [], self._cwd
        while folder is not None:  # BFCL's loop also stops at a name equal to the root object: never
            names.append(folder.name)
            folder = folder.parent
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> dict:
        """List the contents of the current directory.

        Args:
            a: Also list hidden entries (names starting with a dot); False by default.
        """
        names = list(self._cwd.contents)
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
            if self._cwd.parent:
                self._cwd = self._cwd.parent
            elif self.root == self._cwd:
                return {"error": "Current directory is already the root. Cannot go back."}
            else:
                return {"error": "cd: ..: No such directory"}
            return {}
        target = self._resolve(folder)
        if isinstance(target, dict):
            return target
        self._cwd = target
        return {"current_working_directory": target.name}

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
        if dir_name in self._cwd.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._cwd.add_folder(dir_name)
        return None

    def touch(self, file_name: str) -> Optional[dict]:
        """Create a new file of any extension in the current directory.

        Args:
            file_name: Name of the new file, made in the current directory (no path).
        """
        if not self._valid(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._cwd.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._cwd.add_file(file_name)
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
        if file_name not in self._cwd.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        self._cwd.item(file_name).content = content  # a folder gets a content attribute, as in BFCL's _write
        return None

    def cat(self, file_name: str) -> dict:
        """Display the contents of a file of any extension from currrent directory.

        Args:
            file_name: Name of a file in the current directory (no path).
        """
        if not self._valid(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._cwd.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        item = self._cwd.item(file_name)
        if isinstance(item, FileNode):
            return {"file_content": item.content}
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
        matches = []

        def walk(folder: Folder, base: str) -> None:
            for item_name, item in folder.contents.items():
                item_path = f"{base}/{item_name}"
                if name is None or name in item_name:
                    matches.append(item_path)
                if isinstance(item, Folder):
                    walk(item, item_path)

        walk(target, path.rstrip("/"))
        return {"matches": matches}

    def wc(self, file_name: str, mode: str = "l") -> dict:
        """Count the number of lines, words, and characters in a file of any extension from current directory.

        Args:
            file_name: Name of a file in the current directory.
            mode: What to count: l for lines (the default), w for words, c for characters.
        """
        if mode not in ["l", "w", "c"]:
            return {"error": f"wc: invalid mode '{mode}'"}
        node = self._file(file_name)
        if node is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        if mode == "l":
            return {"count": len(node.content.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(node.content.split()), "type": "words"}
        return {"count": len(node.content), "type": "characters"}

    def sort(self, file_name: str) -> dict:
        """Sort the contents of a file line by line.

        Args:
            file_name: Name of a file in the current directory.
        """
        node = self._file(file_name)
        if node is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(node.content.splitlines()))}

    def grep(self, file_name: str, pattern: str) -> dict:
        """Search for lines in a file of any extension at current directory that contain the specified pattern.

        Args:
            file_name: Name of a file in the current directory (no path).
            pattern: The text the lines must contain.
        """
        node = self._file(file_name)
        if node is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in node.content.splitlines() if pattern in line]}

    def du(self, human_readable: bool = False) -> dict:
        """Estimate the disk usage of a directory and its contents.

        Args:
            human_readable: Give the size in units such as KB and MB instead of bytes; False by default.
        """
        def size(item) -> int:
            if isinstance(item, FileNode):
                return len(item.content.encode("utf-8"))
            if isinstance(item, Folder):
                return sum(size(child) for child in item.contents.values())
            return 0

        total = size(self._cwd)
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
        node = self._file(file_name)
        if node is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        content = node.content.splitlines()
        if lines > len(content):
            lines = len(content)
        return {"last_lines": "\n".join(content[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> dict:
        """Compare two files of any extension line by line at the current directory.

        Args:
            file_name1: Name of the first file, in the current directory.
            file_name2: Name of the second file, in the current directory.
        """
        first, second = self._file(file_name1), self._file(file_name2)
        if first is None or second is None:
            return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}
        changed = [f"- {a}\n+ {b}" for a, b in zip(first.content.splitlines(), second.content.splitlines()) if a != b]
        return {"diff_lines": "\n".join(changed)}

    def mv(self, source: str, destination: str) -> dict:
        """Move a file or directory from one location to another.

        Args:
            source: Name of the file or folder to move, in the current directory.
            destination: A folder in the current directory to move it into, or else its new name (no path).
        """
        if source not in self._cwd.contents:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        item = self._cwd.item(source)
        if "/" in destination:
            return {"error": "mv: path not allowed in destination. Provide only a file or directory name."}
        if destination in self._cwd.contents:
            target = self._cwd.item(destination)
            if not isinstance(target, Folder):
                return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
            if source in target.contents:
                return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
            self._cwd.contents.pop(source)
            self._place(item, target, source, share=True)
            return {"result": f"'{source}' moved to '{destination}/{source}'"}
        self._cwd.contents.pop(source)
        self._place(item, self._cwd, destination, share=True)
        return {"result": f"'{source}' moved to '{destination}'"}

    @staticmethod
    def _place(item, folder: Folder, name: str, share: bool) -> None:
        """A new node ``name`` in ``folder`` holding ``item``'s content (a folder: its very children)."""
        if isinstance(item, FileNode):
            folder.add_file(name, item.content)
        else:
            folder.add_folder(name)
            folder.contents[name].contents = item.contents if share else dict(item.contents)

    def rm(self, file_name: str) -> dict:
        """Remove a file or directory.

        Args:
            file_name: Name of the file or folder to remove.
        """
        if file_name not in self._cwd.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        self._cwd.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict:
        """Remove a directory at current directory.

        Args:
            dir_name: Name of the empty folder to remove, in the current directory.
        """
        if dir_name not in self._cwd.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        item = self._cwd.item(dir_name)
        if not isinstance(item, Folder):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if item.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._cwd.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}

    def cp(self, source: str, destination: str) -> dict:
        """Copy a file or directory from one location to another.

        Args:
            source: Name of the file or folder to copy, in the current directory.
            destination: A folder in the current directory to copy it into, or else the copy's name (no path).
        """
        if source not in self._cwd.contents:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        item = self._cwd.item(source)
        if "/" in destination:
            return {"error": "cp: path not allowed in destination. Provide only a file or directory name."}
        if destination in self._cwd.contents:
            target = self._cwd.item(destination)
            if not isinstance(target, Folder):
                return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
            # BFCL looks for "<destination>/<source>" among the folder's names, which never holds one,
            # so copying onto an existing name fails in add_file/add_folder instead.
            self._place(item, target, source, share=False)
            return {"result": f"'{source}' copied to '{destination}/{source}'"}
        self._place(item, self._cwd, destination, share=False)
        return {"result": f"'{source}' copied to '{destination}'"}

"""Knowledge bases in the window: the Knowledge dialog (create, rename, delete, add
folders and files, index in the background, embedding model) and the menu that
attaches bases to a chat."""

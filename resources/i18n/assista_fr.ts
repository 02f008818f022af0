<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr_FR" sourcelanguage="en">
    <context>
        <name>AboutDialog</name>
        <message>
            <source>No licence text is shipped with this component; its licence is named above.</source>
            <translation>Ce composant n’inclut pas le texte de sa licence ; celle-ci est indiquée ci-dessus.</translation>
        </message>
        <message>
            <source>About {app}</source>
            <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
            <translation>À propos de {app}</translation>
        </message>
        <message>
            <source>A desktop chat client for large language models.</source>
            <translation>Un client de discussion de bureau pour les grands modèles de langage.</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>Licence : {licence}</translation>
        </message>
        <message>
            <source>{app} is built with these components:</source>
            <translation>{app} est construit avec ces composants :</translation>
        </message>
        <message>
            <source>Bundled components</source>
            <translation>Composants inclus</translation>
        </message>
        <message>
            <source>Component</source>
            <translation>Composant</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>Version</translation>
        </message>
        <message>
            <source>Licence</source>
            <translation>Licence</translation>
        </message>
        <message>
            <source>Licence text</source>
            <translation>Texte de la licence</translation>
        </message>
        <message>
            <source>Select a component to read its licence.</source>
            <translation>Sélectionnez un composant pour lire sa licence.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImage</name>
        <message>
            <source>Image {width}×{height}</source>
            <translation>Image {width}×{height}</translation>
        </message>
        <message>
            <source>Save as…</source>
            <translation>Enregistrer sous…</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Copier</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Ouvrir</translation>
        </message>
        <message>
            <source>Save image</source>
            <translation>Enregistrer l’image</translation>
        </message>
        <message>
            <source>Images (*.{suffix})</source>
            <translation>Images (*.{suffix})</translation>
        </message>
        <message>
            <source>The image could not be saved: {reason}</source>
            <translation>L’image n’a pas pu être enregistrée : {reason}</translation>
        </message>
        <message>
            <source>The image could not be opened: {reason}</source>
            <translation>L’image n’a pas pu être ouverte : {reason}</translation>
        </message>
        <message>
            <source>No application opens images.</source>
            <translation>Aucune application n’ouvre les images.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImages</name>
        <message>
            <source>Image not shown: it is larger than the app allows (10 MB, 8192×8192 pixels).</source>
            <extracomment>The widest an answer's image is shown (a click on Open shows it whole). Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).</extracomment>
            <translation>Image non affichée : elle dépasse ce que l’application autorise (10 Mo, 8192×8192 pixels).</translation>
        </message>
        <message>
            <source>Image not shown: the provider sent a link instead of the picture.</source>
            <translation>Image non affichée : le fournisseur a envoyé un lien au lieu de l’image.</translation>
        </message>
        <message>
            <source>Image not shown: it could not be downloaded.</source>
            <translation>Image non affichée : elle n’a pas pu être téléchargée.</translation>
        </message>
        <message>
            <source>The provider could not make the image.</source>
            <translation>Le fournisseur n’a pas pu créer l’image.</translation>
        </message>
        <message>
            <source>Image not shown: the data is not a picture the app can show (PNG, JPEG, GIF or WebP).</source>
            <translation>Image non affichée : les données ne sont pas une image que l’application sait afficher (PNG, JPEG, GIF ou WebP).</translation>
        </message>
        <message>
            <source>Image not shown: its data is broken.</source>
            <translation>Image non affichée : ses données sont corrompues.</translation>
        </message>
    </context>
    <context>
        <name>AppTray</name>
        <message>
            <source>{app} tray menu</source>
            <translation>Menu de {app} dans la zone de notification</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Nouvelle discussion</translation>
        </message>
        <message>
            <source>&amp;Quick ask…</source>
            <translation>&amp;Question rapide…</translation>
        </message>
        <message>
            <source>&amp;Hide window</source>
            <translation>&amp;Masquer la fenêtre</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Quitter</translation>
        </message>
        <message>
            <source>&amp;Show window</source>
            <translation>&amp;Afficher la fenêtre</translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>… {count} more lines</source>
            <translation>… {count} lignes de plus</translation>
        </message>
        <message>
            <source>(empty diff)</source>
            <translation>(diff vide)</translation>
        </message>
        <message>
            <source>built-in tool</source>
            <translation>outil intégré</translation>
        </message>
        <message>
            <source>MCP server “{server}”</source>
            <translation>serveur MCP « {server} »</translation>
        </message>
        <message>
            <source>Changes</source>
            <translation>Modifications</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Commande</translation>
        </message>
        <message>
            <source>URL</source>
            <translation>URL</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Arguments</translation>
        </message>
        <message>
            <source>Approval needed: {tool}</source>
            <translation>Approbation requise : {tool}</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Approbation requise</translation>
        </message>
        <message>
            <source>Chat: {title}</source>
            <translation>Discussion : {title}</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Nouvelle discussion</translation>
        </message>
        <message>
            <source>Show the chat that asks</source>
            <translation>Afficher la discussion qui demande</translation>
        </message>
        <message>
            <source>Show chat {title}</source>
            <translation>Afficher la discussion {title}</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Aperçu</translation>
        </message>
        <message>
            <source>Reason for denying (optional)</source>
            <translation>Raison du refus (facultatif)</translation>
        </message>
        <message>
            <source>If you deny, this reason is sent to the assistant</source>
            <translation>Si vous refusez, cette raison est envoyée à l’assistant</translation>
        </message>
        <message>
            <source>Reason for denying</source>
            <translation>Raison du refus</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Exécuter cet appel maintenant ; redemander la prochaine fois</translation>
        </message>
        <message>
            <source>Run {tool} without asking in this chat</source>
            <translation>Exécuter {tool} sans demander dans cette discussion</translation>
        </message>
        <message>
            <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
            <translation>Ne plus jamais demander pour {tool}, dans aucune discussion (révocable dans Réglages → Outils)</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told (with your reason)</source>
            <translation>Ne pas l’exécuter ; l’assistant en est informé (avec votre raison)</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on (forget it in Settings → Tools)</source>
            <translation>Les commandes de ce chat peuvent désormais utiliser le réseau (à oublier dans Paramètres → Outils)</translation>
        </message>
        <message>
            <source>Run this command with the network; ask again next time</source>
            <translation>Exécuter cette commande avec le réseau ; redemander la prochaine fois</translation>
        </message>
        <message>
            <source>Full arguments</source>
            <translation>Arguments complets</translation>
        </message>
        <message>
            <source>Allow network for this &amp;chat</source>
            <translation>Autoriser le réseau pour ce &amp;chat</translation>
        </message>
        <message>
            <source>Allow &amp;once</source>
            <translation>Autoriser &amp;une fois</translation>
        </message>
        <message>
            <source>Allow for this &amp;chat</source>
            <translation>Autoriser pour cette &amp;discussion</translation>
        </message>
        <message>
            <source>Al&amp;ways allow</source>
            <translation>T&amp;oujours autoriser</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>&amp;Refuser</translation>
        </message>
        <message>
            <source>Allowed once</source>
            <translation>Autorisé une fois</translation>
        </message>
        <message>
            <source>Network allowed for this chat's commands</source>
            <translation>Réseau autorisé pour les commandes de ce chat</translation>
        </message>
        <message>
            <source>Allowed for this chat</source>
            <translation>Autorisé pour cette discussion</translation>
        </message>
        <message>
            <source>Always allowed</source>
            <translation>Toujours autorisé</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Refusé</translation>
        </message>
        <message>
            <source>Always allowed within {scope}</source>
            <translation>Toujours autorisé dans {scope}</translation>
        </message>
    </context>
    <context>
        <name>ApprovalTitle</name>
        <message>
            <source>Fetch {host}</source>
            <translation>Récupérer {host}</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>Exécuter une commande</translation>
        </message>
        <message>
            <source>Run a command in {folder}</source>
            <translation>Exécuter une commande dans {folder}</translation>
        </message>
        <message>
            <source>Create {path}</source>
            <translation>Créer {path}</translation>
        </message>
        <message>
            <source>Overwrite {path}</source>
            <translation>Écraser {path}</translation>
        </message>
        <message>
            <source>Edit {path}</source>
            <translation>Modifier {path}</translation>
        </message>
        <message>
            <source>Save a memory</source>
            <translation>Enregistrer un souvenir</translation>
        </message>
        <message>
            <source>Allow network for this chat's commands</source>
            <translation>Autoriser le réseau pour les commandes de ce chat</translation>
        </message>
        <message>
            <source>Sandboxed · no network · writes only in the workspace</source>
            <translation>En bac à sable · sans réseau · écrit seulement dans l'espace de travail</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed · writes only in the workspace</source>
            <translation>En bac à sable · réseau autorisé · écrit seulement dans l'espace de travail</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed for this chat · writes only in the workspace</source>
            <translation>Dans le bac à sable · réseau autorisé pour ce chat · écrit uniquement dans le dossier de travail</translation>
        </message>
        <message>
            <source>Not sandboxed: the sandbox is turned off in Settings → Tools</source>
            <translation>Sans bac à sable : il est désactivé dans Paramètres → Outils</translation>
        </message>
        <message>
            <source>Not sandboxed: this system offers no sandbox (install bubblewrap)</source>
            <translation>Sans bac à sable : ce système n'en offre pas (installez bubblewrap)</translation>
        </message>
    </context>
    <context>
        <name>AssistantForm</name>
        <message>
            <source>e.g. Code reviewer</source>
            <translation>p. ex. Relecteur de code</translation>
        </message>
        <message>
            <source>Optional: what it is for</source>
            <translation>Facultatif : à quoi il sert</translation>
        </message>
        <message>
            <source>The system prompt of chats started from it (empty: the default system prompt)</source>
            <translation>Le prompt système des discussions lancées avec lui (vide : le prompt système par défaut)</translation>
        </message>
        <message>
            <source>Default provider</source>
            <translation>Fournisseur par défaut</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Modèle par défaut</translation>
        </message>
        <message>
            <source>The provider's default model</source>
            <translation>Le modèle par défaut du fournisseur</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Définir</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Température</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Uniquement ces outils</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Seulement ces outils (sinon les réglages d’outils de l’application)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Outils activés</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Nom</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Description</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Prompt système</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>Fournisseur</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Outils</translation>
        </message>
        <message>
            <source>The provider chosen in the window</source>
            <translation>Le fournisseur choisi dans la fenêtre</translation>
        </message>
        <message>
            <source>(removed provider {id})</source>
            <translation>(fournisseur supprimé {id})</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Compétences</translation>
        </message>
        <message>
            <source>Skills offered to the chats that use this assistant (Settings → Skills adds them)</source>
            <translation>Compétences proposées aux chats qui utilisent cet assistant (Paramètres → Compétences les ajoute)</translation>
        </message>
        <message>
            <source>No skills found (Settings → Skills adds them).</source>
            <translation>Aucune compétence trouvée (Paramètres → Compétences les ajoute).</translation>
        </message>
    </context>
    <context>
        <name>AssistantGallery</name>
        <message>
            <source>Starter assistants</source>
            <translation>Assistants de départ</translation>
        </message>
        <message>
            <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
            <translation>Des assistants prêts à l’emploi. Ajoutez ceux que vous voulez : chacun devient le vôtre, à modifier ou supprimer dans Assistants.</translation>
        </message>
    </context>
    <context>
        <name>AssistantPicker</name>
        <message>
            <source>Assistant</source>
            <translation>Assistant</translation>
        </message>
        <message>
            <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
            <translation>L’assistant de cette discussion : son prompt système, son modèle, sa température et ses outils</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Aucun assistant</translation>
        </message>
        <message>
            <source>Manage assistants…</source>
            <translation>Gérer les assistants…</translation>
        </message>
    </context>
    <context>
        <name>AssistantsDialog</name>
        <message>
            <source>Assistants</source>
            <translation>Assistants</translation>
        </message>
        <message>
            <source>New</source>
            <translation>Nouveau</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Dupliquer</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>Monter</translation>
        </message>
        <message>
            <source>Move up (drag to reorder)</source>
            <translation>Monter (faites glisser pour réordonner)</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>Descendre</translation>
        </message>
        <message>
            <source>Move down (drag to reorder)</source>
            <translation>Descendre (faites glisser pour réordonner)</translation>
        </message>
        <message>
            <source>Starter assistants…</source>
            <translation>Assistants de départ…</translation>
        </message>
        <message>
            <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
            <translation>Ajouter des assistants tout prêts (traducteur, programmeur, correcteur…) à modifier comme les vôtres</translation>
        </message>
        <message>
            <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
            <translation>Pas encore d’assistant. Remplissez le formulaire et cliquez sur Enregistrer, ou ajoutez-en des tout prêts avec Assistants de départ.</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Enregistrer</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>New assistant</source>
            <translation>Nouvel assistant</translation>
        </message>
        <message>
            <source>New assistant {number}</source>
            <translation>Nouvel assistant {number}</translation>
        </message>
        <message>
            <source>Delete assistant</source>
            <translation>Supprimer l’assistant</translation>
        </message>
        <message>
            <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
            <translation>Supprimer l’assistant « {name} » ? Les discussions lancées avec lui gardent leurs messages.</translation>
        </message>
    </context>
    <context>
        <name>AttachFilters</name>
        <message>
            <source>Images</source>
            <translation>Images</translation>
        </message>
        <message>
            <source>PDF documents</source>
            <translation>Documents PDF</translation>
        </message>
        <message>
            <source>Word documents</source>
            <translation>Documents Word</translation>
        </message>
        <message>
            <source>Spreadsheets</source>
            <translation>Feuilles de calcul</translation>
        </message>
        <message>
            <source>Presentations</source>
            <translation>Présentations</translation>
        </message>
        <message>
            <source>EPUB books</source>
            <translation>Livres EPUB</translation>
        </message>
        <message>
            <source>Web pages</source>
            <translation>Pages web</translation>
        </message>
        <message>
            <source>Text and source code</source>
            <translation>Texte et code source</translation>
        </message>
        <message>
            <source>All supported files ({patterns})</source>
            <translation>Tous les fichiers pris en charge ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Tous les fichiers (*)</translation>
        </message>
    </context>
    <context>
        <name>AttachmentCard</name>
        <message>
            <source>{name} is no longer at {path}, and the chat keeps only its text.</source>
            <translation>{name} n’est plus à {path}, et la conversation n’en garde que le texte.</translation>
        </message>
        <message>
            <source>{name} could not be opened: {reason}</source>
            <translation>Impossible d’ouvrir {name} : {reason}</translation>
        </message>
        <message>
            <source>No application opens {name}.</source>
            <translation>Aucune application n’ouvre {name}.</translation>
        </message>
        <message>
            <source>Open {name}</source>
            <translation>Ouvrir {name}</translation>
        </message>
        <message>
            <source>Open {file}</source>
            <translation>Ouvrir {file}</translation>
        </message>
        <message>
            <source>Show extracted text</source>
            <translation>Afficher le texte extrait</translation>
        </message>
        <message>
            <source>Extracted text of {name}</source>
            <translation>Texte extrait de {name}</translation>
        </message>
        <message>
            <source>Hide extracted text</source>
            <translation>Masquer le texte extrait</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove {name}</source>
            <translation>Retirer {name}</translation>
        </message>
    </context>
    <context>
        <name>BodyMenu</name>
        <message>
            <source>Copy</source>
            <translation>Copier</translation>
        </message>
        <message>
            <source>Copy code block</source>
            <translation>Copier le bloc de code</translation>
        </message>
        <message>
            <source>Copy link address</source>
            <translation>Copier l’adresse du lien</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>Tout sélectionner</translation>
        </message>
    </context>
    <context>
        <name>BranchBar</name>
        <message>
            <source>Edit</source>
            <translation>Modifier</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept)</source>
            <translation>Modifier ce message et le renvoyer (l’original est conservé)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>Régénérer</translation>
        </message>
        <message>
            <source>Answer again (this answer is kept)</source>
            <translation>Répondre à nouveau (cette réponse est conservée)</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>Version précédente</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>Version suivante</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>Version {index} sur {count}</translation>
        </message>
    </context>
    <context>
        <name>BundleDialog</name>
        <message>
            <source>{path} is not a file.</source>
            <translation>{path} n'est pas un fichier.</translation>
        </message>
        <message>
            <source>The extension is refused: {reason}</source>
            <translation>L'extension est refusée : {reason}</translation>
        </message>
        <message>
            <source>An MCP server named {name} is already installed.</source>
            <translation>Un serveur MCP nommé {name} est déjà installé.</translation>
        </message>
        <message>
            <source>{field} is required.</source>
            <translation>{field} est obligatoire.</translation>
        </message>
        <message>
            <source>{field} is not a valid value.</source>
            <translation>{field} n'a pas une valeur valide.</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Installer l'extension</translation>
        </message>
        <message>
            <source>{name} {version}</source>
            <translation>{name} {version}</translation>
        </message>
        <message>
            <source>By {author}. {description}</source>
            <translation>Par {author}. {description}</translation>
        </message>
        <message>
            <source>It runs on this computer as the MCP server {name}, with your permissions; its tools ask before they act unless you allow them. Secrets go to the keyring.</source>
            <translation>Elle s'exécute sur cet ordinateur comme serveur MCP {name}, avec vos droits ; ses outils demandent avant d'agir sauf si vous les autorisez. Les secrets vont dans le trousseau.</translation>
        </message>
        <message>
            <source>Install</source>
            <translation>Installer</translation>
        </message>
        <message>
            <source>The extension could not be installed: {reason}</source>
            <translation>L'extension n'a pas pu être installée : {reason}</translation>
        </message>
    </context>
    <context>
        <name>CallProgress</name>
        <message>
            <source>Progress</source>
            <translation>Progression</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>A temporary chat has one version of each message: edit and regenerate are not available.</source>
            <translation>Une discussion temporaire n'a qu'une version de chaque message : modifier et régénérer ne sont pas disponibles.</translation>
        </message>
        <message>
            <source>This chat is answering in another Assista process (assista ask); try again once that answer has finished.</source>
            <translation>Cette discussion répond dans un autre processus Assista (assista ask) ; réessayez une fois cette réponse terminée.</translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>En attente de la fin d’une autre réponse de ce fournisseur…</translation>
        </message>
        <message>
            <source>Memory removed.</source>
            <translation>Souvenir supprimé.</translation>
        </message>
        <message>
            <source>This memory was already deleted.</source>
            <translation>Ce souvenir était déjà supprimé.</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Assista JSON, lossless (*.json)</source>
            <translation>JSON Assista, sans perte (*.json)</translation>
        </message>
        <message>
            <source>Markdown, readable (*.md)</source>
            <translation>Markdown, lisible (*.md)</translation>
        </message>
        <message>
            <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
            <translation>Exports de discussions (*.json *.zip);;Export JSON Assista (*.json);;Export ChatGPT (conversations.json *.zip);;Tous les fichiers (*)</translation>
        </message>
    </context>
    <context>
        <name>ChatKnowledgeButton</name>
        <message>
            <source>Knowledge bases of this chat</source>
            <translation>Bases de connaissances de cette discussion</translation>
        </message>
        <message>
            <source>The model can search the checked knowledge bases</source>
            <translation>Le modèle peut interroger les bases de connaissances cochées</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Aucune</translation>
        </message>
        <message>
            <source>No knowledge bases yet (Knowledge…)</source>
            <translation>Pas encore de base de connaissances (Connaissances…)</translation>
        </message>
    </context>
    <context>
        <name>ChatPane</name>
        <message>
            <source>Delete messages</source>
            <translation>Supprimer des messages</translation>
        </message>
        <message>
            <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
            <translation>Supprimer ce message et tout ce qui suit ? Les autres versions en dessous sont aussi supprimées. Cette action est irréversible.</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Joindre des fichiers</translation>
        </message>
    </context>
    <context>
        <name>ChatSettingsPopover</name>
        <message>
            <source>This chat</source>
            <translation>Cette discussion</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>Modifier…</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Définir</translation>
        </message>
        <message>
            <source>Set the temperature</source>
            <translation>Définir la température</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Température</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>Jetons max.</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Effort de raisonnement</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Rechercher sur le Web</translation>
        </message>
        <message>
            <source>Search the web in this chat</source>
            <translation>Rechercher sur le Web dans cette discussion</translation>
        </message>
        <message>
            <source>Use the defaults</source>
            <translation>Utiliser les valeurs par défaut</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Raisonnement</translation>
        </message>
        <message>
            <source>Web</source>
            <translation>Web</translation>
        </message>
        <message>
            <source>Knowledge</source>
            <translation>Connaissances</translation>
        </message>
        <message>
            <source>{model} — {provider}</source>
            <translation>{model} — {provider}</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>aucun modèle</translation>
        </message>
        <message>
            <source>No provider yet</source>
            <translation>Pas encore de fournisseur</translation>
        </message>
        <message>
            <source>Default ({value})</source>
            <translation>Par défaut ({value})</translation>
        </message>
        <message>
            <source>Default (the model's)</source>
            <translation>Par défaut (celui du modèle)</translation>
        </message>
        <message>
            <source>off</source>
            <translation>désactivé</translation>
        </message>
        <message>
            <source>on</source>
            <translation>activé</translation>
        </message>
        <message>
            <source>This model does not say it can reason; the setting is sent anyway.</source>
            <translation>Ce modèle n’indique pas savoir raisonner ; le réglage est envoyé quand même.</translation>
        </message>
        <message>
            <source>the assistant {name}</source>
            <translation>l’assistant {name}</translation>
        </message>
        <message>
            <source>the provider</source>
            <translation>le fournisseur</translation>
        </message>
        <message>
            <source>Unset values come from {source}. These apply to this chat only.</source>
            <translation>Les valeurs non définies viennent de {source}. Ces réglages ne valent que pour cette discussion.</translation>
        </message>
        <message>
            <source>The provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
            <translation>La recherche du fournisseur s’il en a une (OpenAI Responses, Anthropic, Gemini, OpenRouter), sinon le service de recherche choisi dans les Préférences</translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message>
            <source>Conversation</source>
            <translation>Conversation</translation>
        </message>
        <message>
            <source>Zoom &amp;in</source>
            <translation>Zoom &amp;avant</translation>
        </message>
        <message>
            <source>Zoom &amp;out</source>
            <translation>Zoom a&amp;rrière</translation>
        </message>
        <message>
            <source>&amp;Actual size</source>
            <translation>Taille &amp;réelle</translation>
        </message>
        <message>
            <source>Theme: follow &amp;system</source>
            <translation>Thème : suivre le &amp;système</translation>
        </message>
        <message>
            <source>Theme: &amp;light</source>
            <translation>Thème : &amp;clair</translation>
        </message>
        <message>
            <source>Theme: &amp;dark</source>
            <translation>Thème : &amp;sombre</translation>
        </message>
        <message>
            <source>Theme: &amp;high contrast</source>
            <translation>Thème : contraste é&amp;levé</translation>
        </message>
    </context>
    <context>
        <name>CompareChooser</name>
        <message>
            <source>Compare models</source>
            <translation>Comparer des modèles</translation>
        </message>
        <message>
            <source>Pick {low} to {high} models. Each answers the same question with this chat's conversation, attachments and tools; every answer is kept as a version of the reply.</source>
            <translation>Choisissez de {low} à {high} modèles. Chacun répond à la même question avec la conversation, les pièces jointes et les outils de cette discussion ; chaque réponse est conservée comme une version de la réponse.</translation>
        </message>
        <message>
            <source>Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to compare.</source>
            <translation>Touches : tapez pour chercher, ↑/↓ pour vous déplacer, Entrée pour ajouter ou retirer, Ctrl+Entrée pour comparer.</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Rechercher des modèles</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modèles</translation>
        </message>
        <message>
            <source>Chosen models</source>
            <translation>Modèles choisis</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Comparer</translation>
        </message>
        <message numerus="yes">
            <source>Chosen (%n): </source>
            <translation>
                <numerusform>Choisi (%n) : </numerusform>
                <numerusform>Choisis (%n) : </numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing chosen yet: click models in the list.</source>
            <translation>Rien de choisi pour l’instant : cliquez sur des modèles dans la liste.</translation>
        </message>
        <message>
            <source>Choose {low} to {high} models</source>
            <translation>Choisissez de {low} à {high} modèles</translation>
        </message>
    </context>
    <context>
        <name>CompareColumnView</name>
        <message>
            <source>Answer of {model}</source>
            <translation>Réponse de {model}</translation>
        </message>
        <message>
            <source>Figures of this answer</source>
            <translation>Chiffres de cette réponse</translation>
        </message>
        <message>
            <source>Stop this answer (the others go on); what it wrote so far is kept</source>
            <translation>Arrêter cette réponse (les autres continuent) ; ce qui est déjà écrit est conservé</translation>
        </message>
        <message>
            <source>Stop {model}</source>
            <translation>Arrêter {model}</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Garder celle-ci</translation>
        </message>
        <message>
            <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
            <translation>Afficher cette réponse dans la discussion et continuer à partir d’elle ; les autres réponses restent comme ses autres versions (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the answer of {model}</source>
            <translation>Garder la réponse de {model}</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>Échec : {error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>erreur inconnue</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Arrêté</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Arrêté à la limite de tours d’outils</translation>
        </message>
        <message>
            <source>Keep this answer first: in the chat it can be edited, regenerated, continued, forked or deleted.</source>
            <translation>Gardez d’abord cette réponse : dans la discussion, elle pourra être modifiée, régénérée, poursuivie, dérivée ou supprimée.</translation>
        </message>
        <message>
            <source>{seconds} s to first token</source>
            <translation>{seconds} s jusqu’au premier jeton</translation>
        </message>
        <message>
            <source>{rate} tok/s</source>
            <translation>{rate} jetons/s</translation>
        </message>
        <message>
            <source>{input} in · {output} out</source>
            <translation>{input} entrée · {output} sortie</translation>
        </message>
        <message>
            <source>{output} out</source>
            <translation>{output} sortie</translation>
        </message>
        <message>
            <source>Waiting for the first token…</source>
            <translation>En attente du premier jeton…</translation>
        </message>
    </context>
    <context>
        <name>CompareLauncher</name>
        <message>
            <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
            <translation>Tapez d’abord la question à comparer, puis cliquez sur Comparer (ou envoyez-la sous la forme /compare QUESTION).</translation>
        </message>
    </context>
    <context>
        <name>CompareView</name>
        <message>
            <source>Compare answers</source>
            <translation>Comparer les réponses</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n answer(s)</source>
            <translation>
                <numerusform>Comparaison de %n réponse</numerusform>
                <numerusform>Comparaison de %n réponses</numerusform>
            </translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>Retour à la discussion</translation>
        </message>
        <message>
            <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
            <translation>Retour à la discussion avec la première réponse (ou celle que vous gardez) ; chaque réponse reste une version de la réponse</translation>
        </message>
    </context>
    <context>
        <name>Composer</name>
        <message>
            <source>Built-in</source>
            <translation>Intégrés</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP : {server}</translation>
        </message>
        <message>
            <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
            <translation>Message…  (Entrée pour envoyer · Maj+Entrée pour un saut de ligne)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Message</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Joindre des fichiers</translation>
        </message>
        <message>
            <source>No workspace</source>
            <translation>Aucun dossier de travail</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may read</source>
            <translation>Choisir le dossier que les outils de fichiers peuvent lire</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Dossier de travail</translation>
        </message>
        <message>
            <source>Switch tools on or off for this chat</source>
            <translation>Activer ou désactiver des outils pour cette discussion</translation>
        </message>
        <message>
            <source>Tools for this chat</source>
            <translation>Outils de cette discussion</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Comparer</translation>
        </message>
        <message>
            <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
            <translation>Interroger 2 à 4 modèles à la fois et voir leurs réponses côte à côte (ou tapez /compare)</translation>
        </message>
        <message>
            <source>Attach images, PDF, Word, Excel, PowerPoint, EPUB or text files</source>
            <translation>Joindre des images, PDF, Word, Excel, PowerPoint, EPUB ou fichiers texte</translation>
        </message>
        <message>
            <source>Compare models</source>
            <translation>Comparer des modèles</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>Research: the model plans, searches the web and the chat's knowledge bases in rounds, reads pages and answers with a report citing them (limits in Settings)</source>
            <translation>Recherche : le modèle planifie, cherche sur le web et dans les bases de connaissances de la discussion en plusieurs tours, lit des pages et répond par un rapport qui les cite (limites dans les Réglages)</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Recherche</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Arrêter</translation>
        </message>
        <message>
            <source>Workspace folder: {name}</source>
            <translation>Dossier de travail : {name}</translation>
        </message>
        <message>
            <source>Choose workspace…</source>
            <translation>Choisir un dossier…</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may use</source>
            <translation>Choisir le dossier que les outils de fichiers peuvent utiliser</translation>
        </message>
        <message>
            <source>Workspace folder: none</source>
            <translation>Dossier de travail : aucun</translation>
        </message>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>outils : %n actif</numerusform>
                <numerusform>outils : %n actifs</numerusform>
            </translation>
        </message>
        <message>
            <source>tools: none</source>
            <translation>outils : aucun</translation>
        </message>
        <message>
            <source>Choose a workspace folder to use the file tools</source>
            <translation>Choisissez un dossier de travail pour utiliser les outils de fichiers</translation>
        </message>
        <message>
            <source>No tools available</source>
            <translation>Aucun outil disponible</translation>
        </message>
        <message>
            <source>All on</source>
            <translation>Tous activés</translation>
        </message>
        <message>
            <source>All off</source>
            <translation>Tous désactivés</translation>
        </message>
        <message>
            <source>Tool settings…</source>
            <translation>Réglages des outils…</translation>
        </message>
        <message>
            <source>MCP servers…</source>
            <translation>Serveurs MCP…</translation>
        </message>
    </context>
    <context>
        <name>ConversationActions</name>
        <message>
            <source>&amp;Import chats…</source>
            <translation>&amp;Importer des discussions…</translation>
        </message>
        <message>
            <source>&amp;Export chat…</source>
            <translation>&amp;Exporter la discussion…</translation>
        </message>
        <message>
            <source>Export &amp;all chats…</source>
            <translation>Exporter &amp;toutes les discussions…</translation>
        </message>
        <message>
            <source>&amp;Chat</source>
            <translation>&amp;Discussion</translation>
        </message>
        <message>
            <source>&amp;Search chats…</source>
            <translation>&amp;Rechercher dans les discussions…</translation>
        </message>
        <message>
            <source>&amp;Find in this chat…</source>
            <translation>&amp;Rechercher dans cette conversation…</translation>
        </message>
        <message>
            <source>Edit system &amp;prompt…</source>
            <translation>Modifier le &amp;prompt système…</translation>
        </message>
        <message>
            <source>&amp;Assistants…</source>
            <translation>&amp;Assistants…</translation>
        </message>
        <message>
            <source>Choose &amp;model…</source>
            <translation>Choisir le &amp;modèle…</translation>
        </message>
        <message>
            <source>Stop &amp;all answers</source>
            <translation>Arrêter &amp;toutes les réponses</translation>
        </message>
        <message>
            <source>Show &amp;chats</source>
            <translation>Afficher les &amp;discussions</translation>
        </message>
        <message>
            <source>Show a&amp;rchived chats</source>
            <translation>Afficher les discussions a&amp;rchivées</translation>
        </message>
        <message>
            <source>Show &amp;trash</source>
            <translation>Afficher la &amp;corbeille</translation>
        </message>
    </context>
    <context>
        <name>DefaultPrompt</name>
        <message>
            <source>You are Assista, a helpful assistant running in a desktop app. Use the available tools when they help answer the user's question. Format answers in Markdown.</source>
            <translation>Tu es Assista, un assistant utile qui fonctionne dans une application de bureau. Utilise les outils disponibles lorsqu'ils aident à répondre à la question de l'utilisateur. Mets en forme les réponses en Markdown.</translation>
        </message>
    </context>
    <context>
        <name>DesktopNotifier</name>
        <message>
            <source>Answer failed</source>
            <translation>Échec de la réponse</translation>
        </message>
        <message>
            <source>Answer ready</source>
            <translation>Réponse prête</translation>
        </message>
        <message>
            <source>A chat</source>
            <translation>Une discussion</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Approbation requise</translation>
        </message>
        <message>
            <source>{chat}: {tool} waits for your approval</source>
            <translation>{chat} : {tool} attend votre approbation</translation>
        </message>
    </context>
    <context>
        <name>DesktopTab</name>
        <message>
            <source>Keep running in the tray</source>
            <extracomment>The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at once, so the status below says whether the desktop took it.</extracomment>
            <translation>Continuer dans la zone de notification</translation>
        </message>
        <message>
            <source>Closing the window hides it; the tray icon's menu brings it back, and its Quit quits</source>
            <translation>Fermer la fenêtre la masque ; le menu de l’icône de notification la fait revenir, et son Quitter quitte l’application</translation>
        </message>
        <message>
            <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
            <translation>Ce bureau n’affiche pas d’icônes de notification : fermer la fenêtre quitte l’application, quel que soit ce réglage</translation>
        </message>
        <message>
            <source>Tray</source>
            <translation>Zone de notification</translation>
        </message>
        <message>
            <source>Clear the quick ask shortcut</source>
            <translation>Effacer le raccourci de question rapide</translation>
        </message>
        <message>
            <source>No global shortcut</source>
            <translation>Aucun raccourci global</translation>
        </message>
        <message>
            <source>Quick ask shortcut</source>
            <translation>Raccourci de question rapide</translation>
        </message>
        <message>
            <source>Press the key combination that opens the quick-ask window from any application; it applies at once</source>
            <translation>Appuyez sur la combinaison de touches qui ouvre la fenêtre de question rapide depuis n’importe quelle application ; elle s’applique aussitôt</translation>
        </message>
        <message>
            <source>Click, then press the combination (Ctrl, Alt or Meta with a key)</source>
            <translation>Cliquez, puis appuyez sur la combinaison (Ctrl, Alt ou Méta avec une touche)</translation>
        </message>
        <message>
            <source>Quick ask shortcut status</source>
            <translation>État du raccourci de question rapide</translation>
        </message>
        <message>
            <source>Look for a new version once a day</source>
            <translation>Rechercher une nouvelle version une fois par jour</translation>
        </message>
        <message>
            <source>Updates</source>
            <translation>Mises à jour</translation>
        </message>
        <message>
            <source>Release feed URL</source>
            <translation>URL du flux des versions</translation>
        </message>
        <message>
            <source>A feed in GitHub's Releases API format; empty: the project's own releases</source>
            <translation>Un flux au format de l’API Releases de GitHub ; vide : les versions du projet</translation>
        </message>
        <message>
            <source>Release feed</source>
            <translation>Flux des versions</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir): the app never looks for updates.</source>
            <translation>Mode portable (--data-dir) : l’application ne recherche jamais de mises à jour.</translation>
        </message>
        <message>
            <source>The release feed must be an https:// URL.</source>
            <translation>Le flux des versions doit être une URL https://.</translation>
        </message>
    </context>
    <context>
        <name>EarlierColumnView</name>
        <message>
            <source>Assistant</source>
            <translation>Assistant</translation>
        </message>
        <message>
            <source>Earlier answer of {model}</source>
            <translation>Réponse précédente de {model}</translation>
        </message>
        <message>
            <source>The answer you asked about</source>
            <translation>La réponse sur laquelle vous avez demandé</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Garder celle-ci</translation>
        </message>
        <message>
            <source>Go on from this answer, as before; the new answers stay as its other versions (‹ n/m ›)</source>
            <translation>Continuer à partir de cette réponse, comme avant ; les nouvelles réponses restent comme ses autres versions (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the earlier answer</source>
            <translation>Garder la réponse précédente</translation>
        </message>
    </context>
    <context>
        <name>EarlyQuestion</name>
        <message>
            <source>Question sent. Opening the chat…</source>
            <translation>Question envoyée. Ouverture de la conversation…</translation>
        </message>
    </context>
    <context>
        <name>EditBanner</name>
        <message>
            <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
            <translation>Modification d’un message précédent — Entrée l’envoie comme nouvelle version ; l’original et ses réponses sont conservés (‹ › pour basculer).</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>Annuler la modification</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>{provider} did not accept the API key. Check the key in Providers.</source>
            <extracomment>code (or "code+param": the sentence when that param is known) -&gt; the sentence.</extracomment>
            <translation>{provider} n’a pas accepté la clé d’API. Vérifiez la clé dans Fournisseurs.</translation>
        </message>
        <message>
            <source>{provider} did not accept the API key (HTTP {status}). Check the key in Providers.</source>
            <translation>{provider} n’a pas accepté la clé d’API (HTTP {status}). Vérifiez la clé dans Fournisseurs.</translation>
        </message>
        <message>
            <source>{provider} refused access: the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} a refusé l’accès : la clé d’API n’a peut-être pas le droit d’utiliser ce modèle ou ce point d’accès.</translation>
        </message>
        <message>
            <source>{provider} refused access (HTTP {status}): the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} a refusé l’accès (HTTP {status}) : la clé d’API n’a peut-être pas le droit d’utiliser ce modèle ou ce point d’accès.</translation>
        </message>
        <message>
            <source>{provider} did not find the address asked for. Check the base URL.</source>
            <translation>{provider} n’a pas trouvé l’adresse demandée. Vérifiez l’URL de base.</translation>
        </message>
        <message>
            <source>{provider} does not know this model. Choose another model or check its name.</source>
            <translation>{provider} ne connaît pas ce modèle. Choisissez un autre modèle ou vérifiez son nom.</translation>
        </message>
        <message>
            <source>{provider} does not know the model {model}. Choose another model or check its name.</source>
            <translation>{provider} ne connaît pas le modèle {model}. Choisissez un autre modèle ou vérifiez son nom.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in a moment.</source>
            <translation>{provider} limite les requêtes (trop nombreuses, trop rapides). Réessayez dans un instant.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in {retry_after} s.</source>
            <translation>{provider} limite les requêtes (trop nombreuses, trop rapides). Réessayez dans {retry_after} s.</translation>
        </message>
        <message>
            <source>{provider} says the account's quota or credit is used up. Check the plan or billing.</source>
            <translation>{provider} indique que le quota ou le crédit du compte est épuisé. Vérifiez l’abonnement ou la facturation.</translation>
        </message>
        <message>
            <source>The conversation is too long for this model's context window. Start a new chat, or delete earlier messages.</source>
            <translation>La conversation est trop longue pour la fenêtre de contexte de ce modèle. Commencez une nouvelle discussion ou supprimez des messages plus anciens.</translation>
        </message>
        <message>
            <source>{provider} refused the request.</source>
            <translation>{provider} a refusé la requête.</translation>
        </message>
        <message>
            <source>{provider} refused the request (HTTP {status}).</source>
            <translation>{provider} a refusé la requête (HTTP {status}).</translation>
        </message>
        <message>
            <source>{provider} had a server error. Try again later.</source>
            <translation>{provider} a rencontré une erreur serveur. Réessayez plus tard.</translation>
        </message>
        <message>
            <source>{provider} had a server error (HTTP {status}). Try again later.</source>
            <translation>{provider} a rencontré une erreur serveur (HTTP {status}). Réessayez plus tard.</translation>
        </message>
        <message>
            <source>Could not connect to {provider}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>Impossible de se connecter à {provider}. Vérifiez l’URL de base, le réseau et le proxy, et que le serveur fonctionne.</translation>
        </message>
        <message>
            <source>Could not connect to {provider} at {url}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>Impossible de se connecter à {provider} à l’adresse {url}. Vérifiez l’URL de base, le réseau et le proxy, et que le serveur fonctionne.</translation>
        </message>
        <message>
            <source>{provider} did not answer in time.</source>
            <translation>{provider} n’a pas répondu à temps.</translation>
        </message>
        <message>
            <source>The connection to {provider} broke before the answer was complete.</source>
            <translation>La connexion à {provider} a été coupée avant la fin de la réponse.</translation>
        </message>
        <message>
            <source>{provider} sent an answer that could not be read. Check the base URL.</source>
            <translation>{provider} a envoyé une réponse illisible. Vérifiez l’URL de base.</translation>
        </message>
        <message>
            <source>{provider} sent a reply larger than the limit; it was not read.</source>
            <translation>{provider} a envoyé une réponse dépassant la limite ; elle n’a pas été lue.</translation>
        </message>
        <message>
            <source>The base URL of {provider} cannot be used. Check it in Providers.</source>
            <translation>L’URL de base de {provider} est inutilisable. Vérifiez-la dans Fournisseurs.</translation>
        </message>
        <message>
            <source>{provider} reported an error.</source>
            <translation>{provider} a signalé une erreur.</translation>
        </message>
        <message>
            <source>Choose a model for {provider} first.</source>
            <translation>Choisissez d’abord un modèle pour {provider}.</translation>
        </message>
        <message>
            <source>{model} cannot see images. Pick a vision model, or turn on vision for it in Providers if you know it supports images.</source>
            <translation>{model} ne peut pas voir les images. Choisissez un modèle doté de la vision, ou activez la vision pour lui dans Fournisseurs si vous savez qu’il prend en charge les images.</translation>
        </message>
        <message>
            <source>This chat is still answering; stop it first.</source>
            <translation>Cette discussion est encore en train de répondre ; arrêtez-la d’abord.</translation>
        </message>
        <message>
            <source>Research needs something to search: choose a search service (SearXNG, Brave or Tavily) in Settings, or add a knowledge base to the chat.</source>
            <translation>La recherche a besoin de quoi chercher : choisissez un service de recherche (SearXNG, Brave ou Tavily) dans les Réglages, ou ajoutez une base de connaissances à la discussion.</translation>
        </message>
        <message>
            <source>That message is already gone.</source>
            <translation>Ce message n’existe déjà plus.</translation>
        </message>
        <message>
            <source>That chat is gone.</source>
            <translation>Cette discussion n’existe plus.</translation>
        </message>
        <message>
            <source>A memory needs some text.</source>
            <translation>Un souvenir a besoin d'un texte.</translation>
        </message>
        <message>
            <source>That memory is gone.</source>
            <translation>Ce souvenir n'existe plus.</translation>
        </message>
        <message>
            <source>Comparing models is not available in a temporary chat.</source>
            <translation>La comparaison de modèles n'est pas disponible dans une discussion temporaire.</translation>
        </message>
        <message>
            <source>Something unexpected went wrong.</source>
            <translation>Une erreur inattendue s’est produite.</translation>
        </message>
        <message>
            <source>A project needs a name.</source>
            <translation>Un projet doit avoir un nom.</translation>
        </message>
        <message>
            <source>There is already a project named {name}.</source>
            <translation>Il existe déjà un projet nommé {name}.</translation>
        </message>
        <message>
            <source>There is no project named {name}.</source>
            <translation>Il n’y a pas de projet nommé {name}.</translation>
        </message>
        <message>
            <source>The file {file} does not exist.</source>
            <translation>Le fichier {file} n’existe pas.</translation>
        </message>
        <message>
            <source>{file} could not be added to the project.</source>
            <translation>{file} n’a pas pu être ajouté au projet.</translation>
        </message>
        <message>
            <source>The workspace {folder} is not a folder.</source>
            <translation>L’espace de travail {folder} n’est pas un dossier.</translation>
        </message>
        <message>
            <source>{sentence} Details: {detail}</source>
            <translation>{sentence} Détails : {detail}</translation>
        </message>
        <message>
            <source>The provider</source>
            <translation>Le fournisseur</translation>
        </message>
        <message>
            <source>The data folder {folder} does not exist.</source>
            <translation>Le dossier de données {folder} n’existe pas.</translation>
        </message>
        <message>
            <source>The data folder {folder} holds no Assista database.</source>
            <translation>Le dossier de données {folder} ne contient aucune base de données Assista.</translation>
        </message>
        <message>
            <source>The data folder {folder} cannot be written.</source>
            <translation>Impossible d’écrire dans le dossier de données {folder}.</translation>
        </message>
        <message>
            <source>{file} cannot be used.</source>
            <translation>Impossible d’utiliser {file}.</translation>
        </message>
        <message>
            <source>The data location {folder} exists but is not a folder.</source>
            <translation>L’emplacement de données {folder} existe mais n’est pas un dossier.</translation>
        </message>
        <message>
            <source>{flag} needs a folder, for example {example}.</source>
            <translation>{flag} attend un dossier, par exemple {example}.</translation>
        </message>
        <message>
            <source>The database is closed.</source>
            <translation>La base de données est fermée.</translation>
        </message>
        <message>
            <source>The database {path} was written by a newer version of Assista (schema {schema}; this version knows up to {known}). Update Assista, or start it with another data folder. The database was not modified.</source>
            <translation>La base de données {path} a été écrite par une version plus récente d’Assista (schéma {schema} ; cette version connaît jusqu’au {known}). Mettez Assista à jour, ou lancez-le avec un autre dossier de données. La base de données n’a pas été modifiée.</translation>
        </message>
        <message>
            <source>The database {path} needs an upgrade (schema {schema} to {known}) and cannot be opened read-only.</source>
            <translation>La base de données {path} doit être mise à niveau (schéma {schema} vers {known}) et ne peut pas être ouverte en lecture seule.</translation>
        </message>
        <message>
            <source>The database {path} is damaged.</source>
            <translation>La base de données {path} est endommagée.</translation>
        </message>
        <message>
            <source>The database {path} is damaged. Restart Assista to recover it.</source>
            <translation>La base de données {path} est endommagée. Redémarrez Assista pour la récupérer.</translation>
        </message>
        <message>
            <source>The database {path} cannot be used. It may be damaged or not an Assista database.</source>
            <translation>Impossible d’utiliser la base de données {path}. Elle est peut-être endommagée, ou ce n’est pas une base de données Assista.</translation>
        </message>
        <message>
            <source>The database {path} is damaged and could not be moved aside; move it away yourself and start Assista again.</source>
            <translation>La base de données {path} est endommagée et n’a pas pu être mise de côté ; déplacez-la vous-même et relancez Assista.</translation>
        </message>
        <message>
            <source>Cannot open the database {path}.</source>
            <translation>Impossible d’ouvrir la base de données {path}.</translation>
        </message>
        <message>
            <source>The database {path} is open read-only (its folder cannot be written); this change was not saved.</source>
            <translation>La base de données {path} est ouverte en lecture seule (son dossier n’est pas accessible en écriture) ; cette modification n’a pas été enregistrée.</translation>
        </message>
        <message>
            <source>The database {path} cannot be written.</source>
            <translation>Impossible d’écrire dans la base de données {path}.</translation>
        </message>
        <message>
            <source>The disk holding the database {path} is full.</source>
            <translation>Le disque qui contient la base de données {path} est plein.</translation>
        </message>
        <message>
            <source>The database is busy or unavailable.</source>
            <translation>La base de données est occupée ou indisponible.</translation>
        </message>
        <message>
            <source>The database {path} could not be read or written.</source>
            <translation>La base de données {path} n’a pas pu être lue ou écrite.</translation>
        </message>
        <message>
            <source>Cannot back up the database {path} before upgrading it. The database was not modified; free some disk space and try again.</source>
            <translation>Impossible de sauvegarder la base de données {path} avant sa mise à niveau. La base de données n’a pas été modifiée ; libérez de l’espace disque et réessayez.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was left at version {version}.</source>
            <translation>La mise à niveau de la base de données {path} (migration {migration}) a échoué. La base de données est restée à la version {version}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was restored as it was (version {version}); a copy is kept in {backup}.</source>
            <translation>La mise à niveau de la base de données {path} (migration {migration}) a échoué. La base de données a été restaurée telle quelle (version {version}) ; une copie est conservée dans {backup}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed, and restoring the backup also failed; your data is safe in {backup}.</source>
            <translation>La mise à niveau de la base de données {path} (migration {migration}) a échoué, et la restauration de la sauvegarde aussi ; vos données sont en sécurité dans {backup}.</translation>
        </message>
        <message>
            <source>After the upgrade, some records of the database point to records that do not exist.</source>
            <translation>Après la mise à niveau, certains enregistrements de la base de données renvoient à des enregistrements qui n’existent pas.</translation>
        </message>
        <message>
            <source>A step of the database upgrade failed.</source>
            <translation>Une étape de la mise à niveau de la base de données a échoué.</translation>
        </message>
        <message>
            <source>Cannot open the request inspector's database {path}.</source>
            <translation>Impossible d’ouvrir la base de données de l’inspecteur de requêtes {path}.</translation>
        </message>
        <message>
            <source>The key file {file} cannot be read. Fix or delete it and enter the API keys again.</source>
            <translation>Impossible de lire le fichier de clés {file}. Réparez-le ou supprimez-le, puis saisissez à nouveau les clés d’API.</translation>
        </message>
        <message>
            <source>The key file {file} has an unexpected format.</source>
            <translation>Le fichier de clés {file} a un format inattendu.</translation>
        </message>
        <message>
            <source>Cannot write the key file {file}.</source>
            <translation>Impossible d’écrire le fichier de clés {file}.</translation>
        </message>
        <message>
            <source>The setting {key} cannot be stored.</source>
            <translation>Impossible d’enregistrer le réglage {key}.</translation>
        </message>
        <message>
            <source>The search failed.</source>
            <translation>La recherche a échoué.</translation>
        </message>
        <message>
            <source>The answer could not be saved.</source>
            <translation>La réponse n’a pas pu être enregistrée.</translation>
        </message>
        <message>
            <source>{count} messages could not be saved.</source>
            <translation>{count} messages n’ont pas pu être enregistrés.</translation>
        </message>
        <message>
            <source>The message is empty.</source>
            <translation>Le message est vide.</translation>
        </message>
        <message>
            <source>That message already exists.</source>
            <translation>Ce message existe déjà.</translation>
        </message>
        <message>
            <source>That message is not in this chat.</source>
            <translation>Ce message n’est pas dans cette discussion.</translation>
        </message>
        <message>
            <source>The message could not be saved: it belongs to another chat.</source>
            <translation>Le message n’a pas pu être enregistré : il appartient à une autre discussion.</translation>
        </message>
        <message>
            <source>The message could not be saved: the message it follows is not in this chat.</source>
            <translation>Le message n’a pas pu être enregistré : le message qu’il suit n’est pas dans cette discussion.</translation>
        </message>
        <message>
            <source>That message is not on the chat's shown branch.</source>
            <translation>Ce message n’est pas sur la branche affichée de la discussion.</translation>
        </message>
        <message>
            <source>There is no question before this message to ask again.</source>
            <translation>Il n’y a aucune question avant ce message à reposer.</translation>
        </message>
        <message>
            <source>A chat with id {chat} already exists.</source>
            <translation>Une discussion avec l’identifiant {chat} existe déjà.</translation>
        </message>
        <message>
            <source>The chat could not be locked for its answer.</source>
            <translation>La discussion n’a pas pu être verrouillée pour sa réponse.</translation>
        </message>
        <message>
            <source>Nothing to undo: no file written by the assistant is waiting to be undone.</source>
            <translation>Rien à annuler : aucun fichier écrit par l’assistant n’attend d’être annulé.</translation>
        </message>
        <message>
            <source>This record has no request to replay (recorded by an older version).</source>
            <translation>Cet enregistrement ne contient aucune requête à rejouer (enregistré par une ancienne version).</translation>
        </message>
        <message>
            <source>Compare {minimum} to {maximum} models at once ({given} given).</source>
            <translation>Comparez de {minimum} à {maximum} modèles à la fois ({given} indiqués).</translation>
        </message>
        <message>
            <source>An assistant needs a name.</source>
            <translation>Un assistant doit avoir un nom.</translation>
        </message>
        <message>
            <source>The temperature must be between 0 and 2.</source>
            <translation>La température doit être comprise entre 0 et 2.</translation>
        </message>
        <message>
            <source>The assistant could not be saved.</source>
            <translation>L’assistant n’a pas pu être enregistré.</translation>
        </message>
        <message>
            <source>That assistant no longer exists.</source>
            <translation>Cet assistant n’existe plus.</translation>
        </message>
        <message>
            <source>The project could not be saved.</source>
            <translation>Le projet n’a pas pu être enregistré.</translation>
        </message>
        <message>
            <source>That project no longer exists.</source>
            <translation>Ce projet n’existe plus.</translation>
        </message>
        <message>
            <source>Several memories have ids starting with {id}; give more of the id.</source>
            <translation>Plusieurs souvenirs ont un identifiant commençant par {id} ; donnez une plus grande partie de l’identifiant.</translation>
        </message>
        <message>
            <source>The system speech failed.</source>
            <translation>La synthèse vocale du système a échoué.</translation>
        </message>
        <message>
            <source>This is not an Assista export file.</source>
            <translation>Ce n’est pas un fichier d’exportation Assista.</translation>
        </message>
        <message>
            <source>This export has format version {version}, which this version of Assista cannot read; update Assista to import it.</source>
            <translation>Cette exportation a le format de version {version}, que cette version d’Assista ne sait pas lire ; mettez Assista à jour pour l’importer.</translation>
        </message>
        <message>
            <source>A chat in the export is not readable.</source>
            <translation>Une discussion de l’exportation est illisible.</translation>
        </message>
        <message>
            <source>The chat {chat} in the export is not readable.</source>
            <translation>La discussion {chat} de l’exportation est illisible.</translation>
        </message>
        <message>
            <source>Some messages of the chat {chat} already exist in another chat.</source>
            <translation>Certains messages de la discussion {chat} existent déjà dans une autre discussion.</translation>
        </message>
        <message>
            <source>The memories in the export are not readable.</source>
            <translation>Les souvenirs de l’exportation sont illisibles.</translation>
        </message>
        <message>
            <source>A project in the export is not readable.</source>
            <translation>Un projet de l’exportation est illisible.</translation>
        </message>
        <message>
            <source>{file} holds more than {limit} MB of chats, more than Assista imports at once; split the export or import the chats in parts.</source>
            <translation>{file} contient plus de {limit} Mo de discussions, plus qu’Assista n’en importe en une fois ; divisez l’exportation ou importez les discussions en plusieurs fois.</translation>
        </message>
        <message>
            <source>{file} is not a file (a folder, a device or a pipe); import reads an export file.</source>
            <translation>{file} n’est pas un fichier (c’est un dossier, un périphérique ou un tube) ; l’importation lit un fichier d’exportation.</translation>
        </message>
        <message>
            <source>{file} is a damaged zip file.</source>
            <translation>{file} est un fichier zip endommagé.</translation>
        </message>
        <message>
            <source>{file} is not a JSON file.</source>
            <translation>{file} n’est pas un fichier JSON.</translation>
        </message>
        <message>
            <source>{file} has no conversations.json inside.</source>
            <translation>{file} ne contient pas de conversations.json.</translation>
        </message>
        <message>
            <source>This file is neither an Assista export nor a ChatGPT conversations.json.</source>
            <translation>Ce fichier n’est ni une exportation Assista ni un conversations.json de ChatGPT.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read: a conversation in it has fields of the wrong type; nothing was imported.</source>
            <translation>L’exportation ChatGPT n’a pas pu être lue : une conversation contient des champs du mauvais type ; rien n’a été importé.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read.</source>
            <translation>L’exportation ChatGPT n’a pas pu être lue.</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Ajoutez un fournisseur pour commencer à discuter.</translation>
        </message>
        <message>
            <source>{provider} needs an API key: add one in Providers.</source>
            <translation>{provider} a besoin d’une clé d’API : ajoutez-en une dans Fournisseurs.</translation>
        </message>
        <message>
            <source>{provider} uses an unsupported kind of provider ({kind}).</source>
            <translation>{provider} utilise un type de fournisseur non pris en charge ({kind}).</translation>
        </message>
        <message>
            <source>{provider}: the option {option} is not valid.</source>
            <translation>{provider} : l’option {option} n’est pas valide.</translation>
        </message>
        <message>
            <source>Unknown provider preset {preset} (known: {known}).</source>
            <translation>Préréglage de fournisseur inconnu {preset} (connus : {known}).</translation>
        </message>
        <message>
            <source>{provider} needs a base URL (for example http://localhost:8080/v1).</source>
            <translation>{provider} a besoin d’une URL de base (par exemple http://localhost:8080/v1).</translation>
        </message>
        <message>
            <source>The header {name} looks like a credential. Enter the API key in the provider's key field instead; it is kept in the system keyring, not in the settings.</source>
            <translation>L’en-tête {name} ressemble à un identifiant secret. Saisissez plutôt la clé d’API dans le champ de clé du fournisseur ; elle est conservée dans le trousseau du système, pas dans les réglages.</translation>
        </message>
        <message>
            <source>Unknown tools: {tools}. Available: {available}.</source>
            <translation>Outils inconnus : {tools}. Disponibles : {available}.</translation>
        </message>
        <message>
            <source>{provider} has no web search of its own: choose a search service (SearXNG, Brave or Tavily) in Settings, or turn off Search the web.</source>
            <translation>{provider} n’a pas de recherche web propre : choisissez un service de recherche (SearXNG, Brave ou Tavily) dans les Réglages, ou désactivez Rechercher sur le web.</translation>
        </message>
        <message>
            <source>Web search via {service} needs the instance's address (Settings).</source>
            <translation>La recherche web via {service} a besoin de l’adresse de l’instance (Réglages).</translation>
        </message>
        <message>
            <source>Web search via {service} needs an API key (Settings).</source>
            <translation>La recherche web via {service} a besoin d’une clé d’API (Réglages).</translation>
        </message>
        <message>
            <source>This model cannot call tools, so it cannot search the web here; pick a model with tools or turn off Search the web.</source>
            <translation>Ce modèle ne peut pas appeler d’outils, il ne peut donc pas chercher sur le web ici ; choisissez un modèle avec outils ou désactivez Rechercher sur le web.</translation>
        </message>
        <message>
            <source>Unknown sync target {url}: use {forms}.</source>
            <translation>Cible de synchronisation inconnue {url} : utilisez {forms}.</translation>
        </message>
        <message>
            <source>Set the sync passphrase in Settings → Sync.</source>
            <translation>Définissez la phrase secrète de synchronisation dans Réglages → Synchronisation.</translation>
        </message>
        <message>
            <source>The sync passphrase is empty; set one to encrypt your chats.</source>
            <translation>La phrase secrète de synchronisation est vide ; définissez-en une pour chiffrer vos discussions.</translation>
        </message>
        <message>
            <source>The sync passphrase is wrong: it does not open the chats already on the target. Nothing was changed.</source>
            <translation>La phrase secrète de synchronisation est incorrecte : elle n’ouvre pas les discussions déjà présentes sur la cible. Rien n’a été modifié.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged.</source>
            <translation>{file} sur la cible de synchronisation est endommagé.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged or was altered (it fails authentication).</source>
            <translation>{file} sur la cible de synchronisation est endommagé ou a été modifié (son authentification échoue).</translation>
        </message>
        <message>
            <source>The sync target was set up by a newer version of Assista; update Assista.</source>
            <translation>La cible de synchronisation a été configurée par une version plus récente d’Assista ; mettez Assista à jour.</translation>
        </message>
        <message>
            <source>{file} was written by a newer version of Assista; update Assista to sync.</source>
            <translation>{file} a été écrit par une version plus récente d’Assista ; mettez Assista à jour pour synchroniser.</translation>
        </message>
        <message>
            <source>Another sync of this data folder is running; this one was skipped.</source>
            <translation>Une autre synchronisation de ce dossier de données est en cours ; celle-ci a été ignorée.</translation>
        </message>
        <message>
            <source>A change on this device is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Une modification sur cet appareil fait {size}, plus que ce que la cible de synchronisation {target} accepte en un envoi ({limit}) ; elle reste sur cet appareil. Supprimez-la, ou augmentez la limite d’envoi du serveur, pour synchroniser à nouveau.</translation>
        </message>
        <message>
            <source>A message in the chat {chat} is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Un message de la discussion {chat} fait {size}, plus que ce que la cible de synchronisation {target} accepte en un envoi ({limit}) ; il reste sur cet appareil. Supprimez-le, ou augmentez la limite d’envoi du serveur, pour synchroniser à nouveau.</translation>
        </message>
        <message>
            <source>The sync target {target} does not hold {count} of the files it accepted: the server lost them. Nothing is lost here; the next sync sends them again.</source>
            <translation>La cible de synchronisation {target} ne conserve pas {count} des fichiers qu’elle a acceptés : le serveur les a perdus. Rien n’est perdu ici ; la prochaine synchronisation les renverra.</translation>
        </message>
        <message>
            <source>{file} disappeared from the sync target during the sync; nothing was changed here, the next sync will read it.</source>
            <translation>{file} a disparu de la cible de synchronisation pendant la synchronisation ; rien n’a été modifié ici, la prochaine synchronisation le lira.</translation>
        </message>
        <message>
            <source>The sync target {target} lost {file}.</source>
            <translation>La cible de synchronisation {target} a perdu {file}.</translation>
        </message>
        <message>
            <source>The sync target {target} refused the credentials (HTTP {status}); check the user name and the password. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a refusé les identifiants (HTTP {status}) ; vérifiez le nom d’utilisateur et le mot de passe. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} refused access (HTTP {status}); check the credentials and the path. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a refusé l’accès (HTTP {status}) ; vérifiez les identifiants et le chemin. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} has no such folder or bucket (HTTP {status}). Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} n’a pas ce dossier ou ce bucket (HTTP {status}). Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} refused a file as too large (HTTP {status}). Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a refusé un fichier trop volumineux (HTTP {status}). Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} is out of space (HTTP {status}); free some space on it. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} n’a plus d’espace (HTTP {status}) ; libérez-y de l’espace. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} failed (HTTP {status}); try again later. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a échoué (HTTP {status}) ; réessayez plus tard. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} answered HTTP {status}. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a répondu HTTP {status}. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} sent more than {limit}, so it was not read (the server or a proxy in between is broken). Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a envoyé plus de {limit}, ce qui n’a donc pas été lu (le serveur ou un proxy intermédiaire est défaillant). Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The sync target {target} did not answer in time; your data here was not changed and the next sync will try again.</source>
            <translation>La cible de synchronisation {target} n’a pas répondu à temps ; vos données ici n’ont pas été modifiées et la prochaine synchronisation réessaiera.</translation>
        </message>
        <message>
            <source>The sync target {target} cannot be reached; your data here was not changed and the next sync will try again.</source>
            <translation>La cible de synchronisation {target} est injoignable ; vos données ici n’ont pas été modifiées et la prochaine synchronisation réessaiera.</translation>
        </message>
        <message>
            <source>The sync target {target} dropped the connection; your data here was not changed and the next sync will try again.</source>
            <translation>La cible de synchronisation {target} a coupé la connexion ; vos données ici n’ont pas été modifiées et la prochaine synchronisation réessaiera.</translation>
        </message>
        <message>
            <source>The sync target {target} failed; your data here was not changed and the next sync will try again.</source>
            <translation>La cible de synchronisation {target} a échoué ; vos données ici n’ont pas été modifiées et la prochaine synchronisation réessaiera.</translation>
        </message>
        <message>
            <source>The sync folder {target} failed. Nothing was changed here.</source>
            <translation>Le dossier de synchronisation {target} a échoué. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>A file URL names a folder on this machine by its full path: file:///path ({url}).</source>
            <translation>Une URL file désigne un dossier de cette machine par son chemin complet : file:///path ({url}).</translation>
        </message>
        <message>
            <source>{file} in the sync folder {target} is larger than {limit}: not a file Assista wrote. Nothing was changed here.</source>
            <translation>{file} dans le dossier de synchronisation {target} dépasse {limit} : ce n’est pas un fichier écrit par Assista. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The S3 URL {url} has no bucket: s3://bucket/prefix.</source>
            <translation>L’URL S3 {url} n’a pas de bucket : s3://bucket/prefix.</translation>
        </message>
        <message>
            <source>S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.</source>
            <translation>La synchronisation S3 a besoin que AWS_ACCESS_KEY_ID et AWS_SECRET_ACCESS_KEY soient définies.</translation>
        </message>
        <message>
            <source>The sync target {target} sent a list of files that cannot be read. Nothing was changed here.</source>
            <translation>La cible de synchronisation {target} a envoyé une liste de fichiers illisible. Rien n’a été modifié ici.</translation>
        </message>
        <message>
            <source>The WebDAV URL {url} has no host.</source>
            <translation>L’URL WebDAV {url} n’a pas d’hôte.</translation>
        </message>
        <message>
            <source>Put the WebDAV password in {variable}, not in the URL.</source>
            <translation>Mettez le mot de passe WebDAV dans {variable}, pas dans l’URL.</translation>
        </message>
        <message>
            <source>Cannot read {file}.</source>
            <translation>Impossible de lire {file}.</translation>
        </message>
        <message>
            <source>{file} is not a file.</source>
            <translation>{file} n’est pas un fichier.</translation>
        </message>
        <message>
            <source>{file} is empty.</source>
            <translation>{file} est vide.</translation>
        </message>
        <message>
            <source>{file} is not UTF-8 text.</source>
            <translation>{file} n’est pas du texte UTF-8.</translation>
        </message>
        <message>
            <source>{file} is not valid CSV.</source>
            <translation>{file} n’est pas un CSV valide.</translation>
        </message>
        <message>
            <source>{file} is not a PDF (its content does not start like one: a damaged download or another kind of file).</source>
            <translation>{file} n’est pas un PDF (son contenu ne commence pas comme un PDF : un téléchargement endommagé ou un autre type de fichier).</translation>
        </message>
        <message>
            <source>{file} is password-protected; open it with its password and save an unprotected copy to attach it.</source>
            <translation>{file} est protégé par un mot de passe ; ouvrez-le avec son mot de passe et enregistrez une copie non protégée pour la joindre.</translation>
        </message>
        <message>
            <source>{file} is too large to attach ({size} MB; the limit is {limit} MB).</source>
            <translation>{file} est trop volumineux pour être joint ({size} Mo ; la limite est de {limit} Mo).</translation>
        </message>
        <message>
            <source>{file} is too large to read ({size}; the limit is {limit} MB).</source>
            <translation>{file} est trop volumineux pour être lu ({size} ; la limite est de {limit} Mo).</translation>
        </message>
        <message>
            <source>{file} unpacks to more than {limit} MB; it is not read.</source>
            <translation>{file} dépasse {limit} Mo une fois décompressé ; il n’est pas lu.</translation>
        </message>
        <message>
            <source>{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code).</source>
            <translation>{file} n’est ni un fichier texte ni un document pris en charge (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, code source).</translation>
        </message>
        <message>
            <source>{file} has no text to read.</source>
            <translation>{file} ne contient aucun texte à lire.</translation>
        </message>
        <message>
            <source>{file} has no text to read (scanned pages without a text layer?).</source>
            <translation>{file} ne contient aucun texte à lire (pages numérisées sans couche de texte ?).</translation>
        </message>
        <message>
            <source>{file} is damaged.</source>
            <translation>{file} est endommagé.</translation>
        </message>
        <message>
            <source>{file} is damaged or not a real {kind} file.</source>
            <translation>{file} est endommagé ou n’est pas un vrai fichier {kind}.</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>Une base de connaissances doit avoir un nom.</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Il existe déjà une base de connaissances nommée {name}.</translation>
        </message>
        <message>
            <source>There is no knowledge base named {name}.</source>
            <translation>Il n’y a pas de base de connaissances nommée {name}.</translation>
        </message>
        <message>
            <source>No such file or folder: {paths}.</source>
            <translation>Fichier ou dossier introuvable : {paths}.</translation>
        </message>
        <message>
            <source>{file} is too large to index.</source>
            <translation>{file} est trop volumineux pour être indexé.</translation>
        </message>
        <message>
            <source>{file} is a link to nothing.</source>
            <translation>{file} est un lien qui ne mène nulle part.</translation>
        </message>
        <message>
            <source>{file} is a link out of the folder (links are followed only inside it).</source>
            <translation>{file} est un lien vers l’extérieur du dossier (les liens ne sont suivis qu’à l’intérieur).</translation>
        </message>
        <message>
            <source>There is no embedding API {kind}.</source>
            <translation>Il n’existe pas d’API d’embeddings {kind}.</translation>
        </message>
        <message>
            <source>Providers of the kind {kind} cannot make embeddings.</source>
            <translation>Les fournisseurs de type {kind} ne savent pas créer d’embeddings.</translation>
        </message>
        <message>
            <source>The embedding request failed.</source>
            <translation>La requête d’embeddings a échoué.</translation>
        </message>
        <message>
            <source>The embedding model {model} at {url} cannot be used; nothing was changed.</source>
            <translation>Le modèle d’embeddings {model} à {url} est inutilisable ; rien n’a été modifié.</translation>
        </message>
        <message>
            <source>No MCP servers are running.</source>
            <translation>Aucun serveur MCP n’est en cours d’exécution.</translation>
        </message>
        <message>
            <source>There is no MCP server named {name}.</source>
            <translation>Il n’y a pas de serveur MCP nommé {name}.</translation>
        </message>
        <message>
            <source>There is already an MCP server named {name}.</source>
            <translation>Il existe déjà un serveur MCP nommé {name}.</translation>
        </message>
        <message>
            <source>The prompt {prompt} needs {names}.</source>
            <translation>Le prompt {prompt} a besoin de {names}.</translation>
        </message>
        <message>
            <source>These values are required: {names}.</source>
            <translation>Ces valeurs sont obligatoires : {names}.</translation>
        </message>
        <message>
            <source>The MCP registry could not be read and there is no saved copy yet.</source>
            <translation>Le registre MCP n’a pas pu être lu et il n’en existe encore aucune copie enregistrée.</translation>
        </message>
        <message>
            <source>The MCP configuration is not valid JSON (line {line}).</source>
            <translation>La configuration MCP n’est pas du JSON valide (ligne {line}).</translation>
        </message>
        <message>
            <source>Cannot read the MCP configuration {file}.</source>
            <translation>Impossible de lire la configuration MCP {file}.</translation>
        </message>
        <message>
            <source>The MCP configuration must be a JSON object with an mcpServers key.</source>
            <translation>La configuration MCP doit être un objet JSON avec une clé mcpServers.</translation>
        </message>
        <message>
            <source>The MCP configuration holds a single server without a name: put it under mcpServers, with its name as the key.</source>
            <translation>La configuration MCP contient un seul serveur sans nom : placez-le sous mcpServers, avec son nom comme clé.</translation>
        </message>
        <message>
            <source>mcpServers must map server names to their settings.</source>
            <translation>mcpServers doit associer des noms de serveurs à leurs réglages.</translation>
        </message>
        <message>
            <source>The MCP configuration lists no servers.</source>
            <translation>La configuration MCP ne contient aucun serveur.</translation>
        </message>
        <message>
            <source>MCP server {server}: its settings must be a JSON object.</source>
            <translation>Serveur MCP {server} : ses réglages doivent être un objet JSON.</translation>
        </message>
        <message>
            <source>MCP server {server}: {key} must be an object of strings.</source>
            <translation>Serveur MCP {server} : {key} doit être un objet de chaînes.</translation>
        </message>
        <message>
            <source>MCP server {server}: unknown transport {transport}.</source>
            <translation>Serveur MCP {server} : transport inconnu {transport}.</translation>
        </message>
        <message>
            <source>The settings of MCP server {server} are not valid.</source>
            <translation>Les réglages du serveur MCP {server} ne sont pas valides.</translation>
        </message>
    </context>
    <context>
        <name>ExchangeView</name>
        <message>
            <source>Find in the request</source>
            <translation>Rechercher dans la requête</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Requête</translation>
        </message>
        <message>
            <source>Find in the response</source>
            <translation>Rechercher dans la réponse</translation>
        </message>
        <message>
            <source>Response</source>
            <translation>Réponse</translation>
        </message>
        <message>
            <source>Find in this event</source>
            <translation>Rechercher dans cet événement</translation>
        </message>
        <message>
            <source>Event</source>
            <translation>Événement</translation>
        </message>
        <message>
            <source>Events (%1)</source>
            <translation>Événements (%1)</translation>
        </message>
        <message>
            <source>Raw bytes (%1)</source>
            <translation>Octets bruts (%1)</translation>
        </message>
        <message>
            <source>Timings</source>
            <translation>Durées</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Rejouer</translation>
        </message>
        <message>
            <source>Stream events</source>
            <translation>Événements du flux</translation>
        </message>
        <message>
            <source>Arrived</source>
            <translation>Arrivée</translation>
        </message>
        <message>
            <source>Bytes</source>
            <translation>Octets</translation>
        </message>
        <message>
            <source>Raw bytes received</source>
            <translation>Octets bruts reçus</translation>
        </message>
        <message>
            <source>Find in these bytes</source>
            <translation>Rechercher dans ces octets</translation>
        </message>
        <message>
            <source>Raw bytes</source>
            <translation>Octets bruts</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Données</translation>
        </message>
        <message>
            <source>%1 (counted from the events)</source>
            <translation>%1 (compté à partir des événements)</translation>
        </message>
        <message>
            <source>Time to headers</source>
            <translation>Délai des en-têtes</translation>
        </message>
        <message>
            <source>Time to first token</source>
            <translation>Délai du premier jeton</translation>
        </message>
        <message>
            <source>Time to last token</source>
            <translation>Délai du dernier jeton</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>Total</translation>
        </message>
        <message>
            <source>Output tokens</source>
            <translation>Jetons de sortie</translation>
        </message>
        <message>
            <source>Tokens per second</source>
            <translation>Jetons par seconde</translation>
        </message>
        <message>
            <source>Retries</source>
            <translation>Nouvelles tentatives</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>Find in this chat</source>
            <translation>Rechercher dans cette conversation</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>Occurrence précédente (Maj+Entrée)</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>Occurrence précédente</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>Occurrence suivante (Entrée)</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>Occurrence suivante</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>Fermer (Échap)</translation>
        </message>
        <message>
            <source>Close the find bar</source>
            <translation>Fermer la barre de recherche</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>Aucune occurrence</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n occurrence</numerusform>
                <numerusform>%n occurrences</numerusform>
            </translation>
        </message>
        <message>
            <source>{current} of {total}</source>
            <translation>{current} sur {total}</translation>
        </message>
    </context>
    <context>
        <name>FindableText</name>
        <message>
            <source>Find</source>
            <translation>Rechercher</translation>
        </message>
        <message numerus="yes">
            <source>%n found</source>
            <translation>
                <numerusform>%n trouvé</numerusform>
                <numerusform>%n trouvés</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>GlobalShortcut</name>
        <message>
            <source>Open the Assista quick-ask window</source>
            <translation>Ouvrir la fenêtre de question rapide d’Assista</translation>
        </message>
        <message>
            <source>Registered with the desktop as {trigger}.</source>
            <translation>Enregistré auprès du bureau comme {trigger}.</translation>
        </message>
        <message>
            <source>Registered: {shortcut} opens quick ask from any application.</source>
            <translation>Enregistré : {shortcut} ouvre la question rapide depuis n’importe quelle application.</translation>
        </message>
        <message>
            <source>Waiting for the desktop to confirm the shortcut…</source>
            <translation>En attente de la confirmation du raccourci par le bureau…</translation>
        </message>
        <message>
            <source>{shortcut} is taken by another program: choose another combination.</source>
            <translation>{shortcut} est déjà pris par un autre programme : choisissez une autre combinaison.</translation>
        </message>
        <message>
            <source>The desktop did not allow the shortcut. Choose it again, or bind the command “assista quick --selection” in the desktop's keyboard settings.</source>
            <translation>Le bureau n’a pas autorisé le raccourci. Choisissez-le à nouveau, ou associez la commande « assista quick --selection » dans les réglages clavier du bureau.</translation>
        </message>
        <message>
            <source>Not available on this desktop: bind the command “assista quick --selection” to a shortcut in the desktop's keyboard settings.</source>
            <translation>Indisponible sur ce bureau : associez la commande « assista quick --selection » à un raccourci dans les réglages clavier du bureau.</translation>
        </message>
        <message>
            <source>No global shortcut. The command “assista quick --selection” can be bound to one in the desktop's keyboard settings.</source>
            <translation>Pas de raccourci global. La commande « assista quick --selection » peut être associée à un raccourci dans les réglages clavier du bureau.</translation>
        </message>
        <message>
            <source>A global shortcut needs Ctrl, Alt or Meta with the key: on its own the key could not be typed anywhere else.</source>
            <translation>Un raccourci global demande Ctrl, Alt ou Méta avec la touche : seule, la touche ne pourrait plus être tapée ailleurs.</translation>
        </message>
        <message>
            <source>This key cannot be part of a global shortcut: choose a letter, digit, function key, Space or an arrow key.</source>
            <translation>Cette touche ne peut pas faire partie d'un raccourci global : choisissez une lettre, un chiffre, une touche de fonction, Espace ou une flèche.</translation>
        </message>
        <message>
            <source>A global shortcut is one key with Ctrl, Alt or Meta, not a sequence of keys.</source>
            <translation>Un raccourci global est une touche avec Ctrl, Alt ou Méta, pas une suite de touches.</translation>
        </message>
    </context>
    <context>
        <name>HitDelegate</name>
        <message>
            <source>You</source>
            <translation>Vous</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>Assistant</translation>
        </message>
        <message>
            <source>Tool result</source>
            <translation>Résultat d’outil</translation>
        </message>
        <message>
            <source>System</source>
            <translation>Système</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titre</translation>
        </message>
        <message>
            <source>archived</source>
            <translation>archivée</translation>
        </message>
    </context>
    <context>
        <name>ImportExport</name>
        <message>
            <source>Open a chat to export it (or use Export all chats…).</source>
            <translation>Ouvrez une discussion pour l’exporter (ou utilisez Exporter toutes les discussions…).</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>Exporter la discussion</translation>
        </message>
        <message>
            <source>Export all chats</source>
            <translation>Exporter toutes les discussions</translation>
        </message>
        <message>
            <source>Import chats</source>
            <translation>Importer des discussions</translation>
        </message>
        <message>
            <source>all chats</source>
            <translation>toutes les discussions</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n discussion</numerusform>
                <numerusform>%n discussions</numerusform>
            </translation>
        </message>
        <message>
            <source>Export to {file} failed: {error}</source>
            <translation>Échec de l’export vers {file} : {error}</translation>
        </message>
        <message>
            <source>Exported {what} as {format} to {file} ({size} bytes).</source>
            <translation>{what} exporté(es) en {format} vers {file} ({size} octets).</translation>
        </message>
        <message>
            <source>Import of {file} failed: {error}</source>
            <translation>Échec de l’import de {file} : {error}</translation>
        </message>
        <message>
            <source>Import finished</source>
            <translation>Import terminé</translation>
        </message>
    </context>
    <context>
        <name>InspectorPanel</name>
        <message>
            <source>HTTP status: %1</source>
            <translation>Statut HTTP : %1</translation>
        </message>
        <message>
            <source>Retries:</source>
            <translation>Nouvelles tentatives :</translation>
        </message>
        <message>
            <source>  attempt %1 at %2, waited %3 s: %4</source>
            <translation>  tentative %1 à %2, attente %3 s : %4</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>Erreur : %1</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspecteur de requêtes</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Requête</translation>
        </message>
        <message>
            <source>Request %1 of %2: %3 · %4 · HTTP %5</source>
            <translation>Requête %1 sur %2 : %3 · %4 · HTTP %5</translation>
        </message>
        <message>
            <source>Copy as curl</source>
            <translation>Copier en curl</translation>
        </message>
        <message>
            <source>The request as a curl command; the key is an environment variable, never the key itself</source>
            <translation>La requête sous forme de commande curl ; la clé y figure comme variable d’environnement, jamais en clair</translation>
        </message>
        <message>
            <source>Copy as JSON</source>
            <translation>Copier en JSON</translation>
        </message>
        <message>
            <source>Everything recorded for this request, redacted</source>
            <translation>Tout ce qui a été enregistré pour cette requête, masqué</translation>
        </message>
        <message>
            <source>%1 · %2 · HTTP %3 · %4</source>
            <translation>%1 · %2 · HTTP %3 · %4</translation>
        </message>
        <message>
            <source>Copied the curl command.</source>
            <translation>Commande curl copiée.</translation>
        </message>
        <message>
            <source>Copied the record as JSON.</source>
            <translation>Enregistrement copié en JSON.</translation>
        </message>
    </context>
    <context>
        <name>InspectorSettings</name>
        <message>
            <source>Record every request sent to a model</source>
            <translation>Enregistrer chaque requête envoyée à un modèle</translation>
        </message>
        <message>
            <source>What was sent (keys and tokens hidden), what came back and the timings, for Inspect on each answer and assista inspect</source>
            <translation>Ce qui a été envoyé (clés et jetons masqués), ce qui est revenu et les durées, pour Inspecter sur chaque réponse et assista inspect</translation>
        </message>
        <message>
            <source>Recording</source>
            <translation>Enregistrement</translation>
        </message>
        <message>
            <source> days</source>
            <translation> jours</translation>
        </message>
        <message>
            <source>Keep recorded requests for</source>
            <translation>Conserver les requêtes enregistrées pendant</translation>
        </message>
        <message>
            <source>Keep for</source>
            <translation>Conserver pendant</translation>
        </message>
        <message>
            <source> MB</source>
            <translation> Mo</translation>
        </message>
        <message>
            <source>Largest size of the recorded requests</source>
            <translation>Taille maximale des requêtes enregistrées</translation>
        </message>
        <message>
            <source>At most</source>
            <translation>Au plus</translation>
        </message>
        <message>
            <source>The oldest requests are deleted first, when the app starts and after each answer. They are kept in inspector.sqlite in the data folder, apart from the chats (not synced).</source>
            <translation>Les requêtes les plus anciennes sont supprimées en premier, au démarrage et après chaque réponse. Elles sont gardées dans inspector.sqlite dans le dossier de données, à part des discussions (non synchronisées).</translation>
        </message>
        <message>
            <source>Delete all recorded requests</source>
            <translation>Supprimer toutes les requêtes enregistrées</translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n recorded requests.</source>
            <translation>
                <numerusform>%n requête enregistrée supprimée.</numerusform>
                <numerusform>%n requêtes enregistrées supprimées.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDetail</name>
        <message>
            <source>Folders and files of the knowledge base</source>
            <translation>Dossiers et fichiers de la base de connaissances</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ajouter un dossier…</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Ajouter des fichiers…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>Stop indexing the selected folder or file</source>
            <translation>Arrêter d’indexer le dossier ou fichier sélectionné</translation>
        </message>
        <message>
            <source>Embedding provider</source>
            <translation>Fournisseur de vectorisation</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>Modèle de vectorisation</translation>
        </message>
        <message>
            <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
            <translation>p. ex. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</translation>
        </message>
        <message>
            <source>Search it in the open chat</source>
            <translation>L’interroger dans la discussion ouverte</translation>
        </message>
        <message>
            <source>Assistants…</source>
            <translation>Assistants…</translation>
        </message>
        <message>
            <source>Every chat with a checked assistant searches this knowledge base</source>
            <translation>Chaque discussion avec un assistant coché interroge cette base de connaissances</translation>
        </message>
        <message>
            <source>Embeddings</source>
            <translation>Vectorisation</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Used by</source>
            <translation>Utilisée par</translation>
        </message>
        <message>
            <source>Folders and files</source>
            <translation>Dossiers et fichiers</translation>
        </message>
        <message>
            <source>Index now</source>
            <translation>Indexer maintenant</translation>
        </message>
        <message>
            <source>Indexing progress</source>
            <translation>Progression de l’indexation</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Cancel indexing</source>
            <translation>Annuler l’indexation</translation>
        </message>
        <message>
            <source>No knowledge base yet</source>
            <translation>Pas encore de base de connaissances</translation>
        </message>
        <message>
            <source>Full text only</source>
            <translation>Texte intégral seulement</translation>
        </message>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n fichier</numerusform>
                <numerusform>%n fichiers</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passages</source>
            <translation>
                <numerusform>%n passage</numerusform>
                <numerusform>%n passages</numerusform>
            </translation>
        </message>
        <message>
            <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds} s</source>
            <translation>{added} ajoutés, {updated} modifiés, {removed} supprimés, {unchanged} inchangés en {seconds} s</translation>
        </message>
        <message numerus="yes">
            <source>%n files could not be read: </source>
            <translation>
                <numerusform>%n fichier n’a pas pu être lu : </numerusform>
                <numerusform>%n fichiers n’ont pas pu être lus : </numerusform>
            </translation>
        </message>
        <message>
            <source>{files}, {chunks}; not indexed yet</source>
            <translation>{files}, {chunks} ; pas encore indexée</translation>
        </message>
        <message>
            <source>{files}, {chunks}; indexed {when}</source>
            <translation>{files}, {chunks} ; indexée {when}</translation>
        </message>
        <message>
            <source>No assistants yet</source>
            <translation>Pas encore d’assistant</translation>
        </message>
        <message>
            <source>Looking for files…</source>
            <translation>Recherche des fichiers…</translation>
        </message>
        <message>
            <source>Computing embeddings…</source>
            <translation>Calcul des vecteurs…</translation>
        </message>
        <message>
            <source>{done} of {total}: {path}</source>
            <translation>{done} sur {total} : {path}</translation>
        </message>
        <message>
            <source>Indexing failed: {error}</source>
            <translation>Échec de l’indexation : {error}</translation>
        </message>
        <message>
            <source>; {n} passages embedded</source>
            <translation> ; {n} passages vectorisés</translation>
        </message>
        <message>
            <source> (cancelled: what was done is kept)</source>
            <translation> (annulé : ce qui a été fait est conservé)</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>Ajouter un dossier</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>Ajouter des fichiers</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDialog</name>
        <message>
            <source>Knowledge</source>
            <translation>Connaissances</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Bases de connaissances</translation>
        </message>
        <message>
            <source>New…</source>
            <translation>Nouvelle…</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>Renommer…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>New knowledge base</source>
            <translation>Nouvelle base de connaissances</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>Nom :</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Il existe déjà une base de connaissances nommée {name}.</translation>
        </message>
        <message>
            <source>Rename knowledge base</source>
            <translation>Renommer la base de connaissances</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>Supprimer la base de connaissances</translation>
        </message>
        <message>
            <source>Delete {name} and its index? Your files are not touched.</source>
            <translation>Supprimer {name} et son index ? Vos fichiers ne sont pas touchés.</translation>
        </message>
    </context>
    <context>
        <name>LanguageChoice</name>
        <message>
            <source>Language</source>
            <translation>Langue</translation>
        </message>
        <message>
            <source>A new language shows after the app is restarted.</source>
            <translation>La nouvelle langue s’affiche après le redémarrage de l’application.</translation>
        </message>
    </context>
    <context>
        <name>Languages</name>
        <message>
            <source>System default</source>
            <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
            <translation>Langue du système</translation>
        </message>
    </context>
    <context>
        <name>Launch</name>
        <message>
            <source> and </source>
            <translation> et </translation>
        </message>
        <message>
            <source>Found {servers} running on this computer</source>
            <translation>{servers} détecté sur cet ordinateur</translation>
        </message>
        <message>
            <source>{app} could not open its data folder:

{error}</source>
            <translation>{app} n’a pas pu ouvrir son dossier de données :

{error}</translation>
        </message>
        <message>
            <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
            <translation>{app} est déjà lancé avec les données de {folder}. Fermez-le d’abord, ou démarrez avec --data-dir.</translation>
        </message>
        <message>
            <source>{app} could not open its data:

{error}</source>
            <translation>{app} n’a pas pu ouvrir ses données :

{error}</translation>
        </message>
    </context>
    <context>
        <name>LocaleFormat</name>
        <message>
            <source>{number}k</source>
            <translation>{number} k</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Opening…</source>
            <translation>Ouverture…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <extracomment>The menus in order (the skeleton shows them disabled until the real ones replace them)</extracomment>
            <translation>&amp;Fichier</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Nouvelle discussion</translation>
        </message>
        <message>
            <source>New t&amp;emporary chat</source>
            <translation>Nouvelle discussion t&amp;emporaire</translation>
        </message>
        <message>
            <source>Choose &amp;workspace folder…</source>
            <translation>Choisir le dossier de &amp;travail…</translation>
        </message>
        <message>
            <source>Install &amp;extension…</source>
            <translation>Installer une &amp;extension…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Quitter</translation>
        </message>
        <message>
            <source>&amp;Settings</source>
            <translation>&amp;Réglages</translation>
        </message>
        <message>
            <source>P&amp;references…</source>
            <translation>P&amp;références…</translation>
        </message>
        <message>
            <source>&amp;Providers…</source>
            <translation>&amp;Fournisseurs…</translation>
        </message>
        <message>
            <source>Model p&amp;rices…</source>
            <translation>P&amp;rix des modèles…</translation>
        </message>
        <message>
            <source>&amp;Tools…</source>
            <translation>&amp;Outils…</translation>
        </message>
        <message>
            <source>&amp;MCP servers…</source>
            <translation>Serveurs &amp;MCP…</translation>
        </message>
        <message>
            <source>&amp;Knowledge…</source>
            <translation>&amp;Connaissances…</translation>
        </message>
        <message>
            <source>S&amp;ync…</source>
            <translation>S&amp;ynchronisation…</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>Affic&amp;hage</translation>
        </message>
        <message>
            <source>Toggle &amp;tool activity</source>
            <translation>Afficher/masquer l’activité des &amp;outils</translation>
        </message>
        <message>
            <source>Show &amp;chat list</source>
            <translation>Afficher la liste des &amp;discussions</translation>
        </message>
        <message>
            <source>Focus &amp;message box</source>
            <translation>Aller à la zone de &amp;message</translation>
        </message>
        <message>
            <source>Go to pending &amp;approval</source>
            <translation>Aller à l’&amp;approbation en attente</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>&amp;Aide</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>&amp;Raccourcis clavier</translation>
        </message>
        <message>
            <source>Open &amp;log folder</source>
            <translation>Ouvrir le dossier des &amp;journaux</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>À &amp;propos</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Arrêté à la limite de tours d’outils</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Arrêté</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Ajoutez un fournisseur pour commencer à discuter.</translation>
        </message>
        <message>
            <source>Preferences saved</source>
            <translation>Préférences enregistrées</translation>
        </message>
        <message>
            <source>Choose workspace folder</source>
            <translation>Choisir le dossier de travail</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Installer l'extension</translation>
        </message>
        <message>
            <source>MCP bundles (*.mcpb *.dxt)</source>
            <translation>Paquets MCP (*.mcpb *.dxt)</translation>
        </message>
    </context>
    <context>
        <name>McpAttachMenu</name>
        <message>
            <source>Files…</source>
            <translation>Fichiers…</translation>
        </message>
        <message>
            <source>From MCP server…</source>
            <translation>Depuis un serveur MCP…</translation>
        </message>
        <message>
            <source>Read again from {0}: the server changed it</source>
            <translation>Relu depuis {0} : le serveur l’a modifié</translation>
        </message>
    </context>
    <context>
        <name>McpCatalogDialog</name>
        <message>
            <source>MCP server catalog</source>
            <translation>Catalogue de serveurs MCP</translation>
        </message>
        <message>
            <source>Search servers</source>
            <translation>Rechercher des serveurs</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Actualiser</translation>
        </message>
        <message>
            <source>Read the registry again</source>
            <translation>Relire le registre</translation>
        </message>
        <message>
            <source>Servers in the catalog</source>
            <translation>Serveurs du catalogue</translation>
        </message>
        <message>
            <source>How to install</source>
            <translation>Installation</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>Ajouter le serveur</translation>
        </message>
        <message>
            <source>Showing the saved copy; reading the registry…</source>
            <translation>Affichage de la copie enregistrée ; lecture du registre…</translation>
        </message>
        <message>
            <source>Reading the MCP registry…</source>
            <translation>Lecture du registre MCP…</translation>
        </message>
        <message>
            <source>Offline ({0}): showing the copy saved on {1}.</source>
            <translation>Hors ligne ({0}) : affichage de la copie enregistrée le {1}.</translation>
        </message>
        <message numerus="yes">
            <source>%n server(s)</source>
            <translation>
                <numerusform>%n serveur</numerusform>
                <numerusform>%n serveurs</numerusform>
            </translation>
        </message>
        <message>
            <source>Choose a server</source>
            <translation>Choisissez un serveur</translation>
        </message>
        <message>
            <source>This server has no package or address the app can install (for example a container image).</source>
            <translation>Ce serveur n’a ni paquet ni adresse que l’application sache installer (par exemple une image de conteneur).</translation>
        </message>
        <message>
            <source>Cannot add it: {0}</source>
            <translation>Impossible de l’ajouter : {0}</translation>
        </message>
    </context>
    <context>
        <name>McpClientFields</name>
        <message>
            <source>only if its sign-in asks for an app registered by hand</source>
            <translation>seulement si sa connexion demande une application enregistrée à la main</translation>
        </message>
        <message>
            <source>stored in the keyring; type to replace it</source>
            <translation>enregistré dans le trousseau ; tapez pour le remplacer</translation>
        </message>
        <message>
            <source>optional; kept in the keyring</source>
            <translation>facultatif ; gardé dans le trousseau</translation>
        </message>
        <message>
            <source>any free port</source>
            <translation>n’importe quel port libre</translation>
        </message>
        <message>
            <source>The port of the redirect URL registered with the app, if its sign-in wants an exact one</source>
            <translation>Le port de l’URL de redirection enregistrée pour l’application, si sa connexion en exige un précis</translation>
        </message>
        <message>
            <source>Client &amp;ID</source>
            <translation>&amp;ID client</translation>
        </message>
        <message>
            <source>Client s&amp;ecret</source>
            <translation>S&amp;ecret client</translation>
        </message>
        <message>
            <source>Callback &amp;port</source>
            <translation>&amp;Port de rappel</translation>
        </message>
        <message>
            <source>Redirect URL to register:
{address}</source>
            <translation>URL de redirection à enregistrer :
{address}</translation>
        </message>
    </context>
    <context>
        <name>McpDialog</name>
        <message>
            <source>MCP servers</source>
            <translation>Serveurs MCP</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
            <translation>Pas encore de serveur MCP. Ajoutez-en un (une commande comme « npx -y @modelcontextprotocol/server-filesystem ~/notes » ou une URL), ou importez votre configuration Claude Desktop.</translation>
        </message>
        <message>
            <source>Save and start</source>
            <translation>Enregistrer et démarrer</translation>
        </message>
        <message>
            <source>Save the servers and (re)start them</source>
            <translation>Enregistrer les serveurs et les (re)démarrer</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>Ajouter</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importer</translation>
        </message>
        <message>
            <source>From a file…</source>
            <translation>Depuis un fichier…</translation>
        </message>
        <message>
            <source>Paste JSON…</source>
            <translation>Coller du JSON…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>new — say how to reach it, then Save</source>
            <translation>nouveau — indiquez comment le joindre, puis Enregistrer</translation>
        </message>
        <message>
            <source>switched off</source>
            <translation>désactivé</translation>
        </message>
        <message>
            <source>not started — Save to start it</source>
            <translation>non démarré — Enregistrer pour le démarrer</translation>
        </message>
        <message>
            <source>failed: {error}</source>
            <translation>échec : {error}</translation>
        </message>
        <message>
            <source>no reason given</source>
            <translation>aucune raison donnée</translation>
        </message>
        <message>
            <source>starting…</source>
            <translation>démarrage…</translation>
        </message>
        <message>
            <source>restarting…</source>
            <translation>redémarrage…</translation>
        </message>
        <message>
            <source> (last error: {error})</source>
            <translation> (dernière erreur : {error})</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>arrêté</translation>
        </message>
        <message>
            <source> · changes not applied yet (Save)</source>
            <translation> · modifications pas encore appliquées (Enregistrer)</translation>
        </message>
        <message>
            <source>(no name)</source>
            <translation>(sans nom)</translation>
        </message>
        <message>
            <source>Remove MCP server</source>
            <translation>Retirer le serveur MCP</translation>
        </message>
        <message>
            <source>Remove {name}? Its tools leave every chat, and its stored keys and sign-in are deleted, when you Save.</source>
            <translation>Retirer {name} ? À l’enregistrement, ses outils quittent toutes les discussions, et ses clés enregistrées et sa connexion sont supprimées.</translation>
        </message>
        <message>
            <source>Removed {name}. Save to stop it.</source>
            <translation>{name} retiré. Enregistrez pour l’arrêter.</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>Importer des serveurs MCP</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>Fichiers JSON (*.json);;Tous les fichiers (*)</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n servers: {names}. Save to start them.</source>
            <translation>
                <numerusform>%n serveur importé : {names}. Enregistrez pour le démarrer.</numerusform>
                <numerusform>%n serveurs importés : {names}. Enregistrez pour les démarrer.</numerusform>
            </translation>
        </message>
        <message>
            <source>There are two servers named {name}; rename one.</source>
            <translation>Deux serveurs s’appellent {name} ; renommez-en un.</translation>
        </message>
        <message>
            <source>Saved. Starting the servers…</source>
            <translation>Enregistré. Démarrage des serveurs…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Enregistré.</translation>
        </message>
        <message>
            <source>{name} is not started: Save to start it.</source>
            <translation>{name} n’est pas démarré : enregistrez pour le démarrer.</translation>
        </message>
        <message>
            <source>This server</source>
            <translation>Ce serveur</translation>
        </message>
        <message>
            <source>Restarting {name}…</source>
            <translation>Redémarrage de {name}…</translation>
        </message>
        <message>
            <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
            <translation>Vous avez des modifications non enregistrées : enregistrez-les, ou cliquez à nouveau sur Fermer pour les abandonner.</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>Parcourir</translation>
        </message>
        <message>
            <source>Servers listed in the official MCP registry</source>
            <translation>Serveurs listés dans le registre MCP officiel</translation>
        </message>
    </context>
    <context>
        <name>McpResourceDialog</name>
        <message>
            <source>Attach from an MCP server</source>
            <translation>Joindre depuis un serveur MCP</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>Ressources</translation>
        </message>
        <message>
            <source>Attach</source>
            <translation>Joindre</translation>
        </message>
        <message>
            <source>No running MCP server offers resources.</source>
            <translation>Aucun serveur MCP actif ne propose de ressources.</translation>
        </message>
        <message>
            <source>Reading {0}…</source>
            <translation>Lecture de {0}…</translation>
        </message>
        <message>
            <source>Cannot attach {0}: {1}</source>
            <translation>Impossible de joindre {0} : {1}</translation>
        </message>
    </context>
    <context>
        <name>McpServerForm</name>
        <message>
            <source>Command (stdio)</source>
            <translation>Commande (stdio)</translation>
        </message>
        <message>
            <source>URL (Streamable HTTP)</source>
            <translation>URL (Streamable HTTP)</translation>
        </message>
        <message>
            <source>URL (SSE, legacy)</source>
            <translation>URL (SSE, ancien)</translation>
        </message>
        <message>
            <source>line {number}: write it as {example}</source>
            <translation>ligne {number} : écrivez-la sous la forme {example}</translation>
        </message>
        <message>
            <source>Shown in lists; also the prefix of its tools' names</source>
            <translation>Affiché dans les listes ; c’est aussi le préfixe des noms de ses outils</translation>
        </message>
        <message>
            <source>Start this server</source>
            <translation>Démarrer ce serveur</translation>
        </message>
        <message>
            <source>npx, uvx, python, /path/to/server…</source>
            <translation>npx, uvx, python, /chemin/vers/serveur…</translation>
        </message>
        <message>
            <source>-y @modelcontextprotocol/server-filesystem "~/My notes"</source>
            <translation>-y @modelcontextprotocol/server-filesystem "~/Mes notes"</translation>
        </message>
        <message>
            <source>KEY=value, one per line</source>
            <translation>CLÉ=valeur, une par ligne</translation>
        </message>
        <message>
            <source>working folder (optional)</source>
            <translation>dossier de travail (facultatif)</translation>
        </message>
        <message>
            <source>https://example.com/mcp</source>
            <translation>https://example.com/mcp</translation>
        </message>
        <message>
            <source>Authorization: Bearer …, one per line</source>
            <translation>Authorization: Bearer …, une par ligne</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Nom</translation>
        </message>
        <message>
            <source>&amp;Connect with</source>
            <translation>&amp;Connexion par</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>&amp;Commande</translation>
        </message>
        <message>
            <source>&amp;Arguments</source>
            <translation>&amp;Arguments</translation>
        </message>
        <message>
            <source>&amp;Environment</source>
            <translation>&amp;Environnement</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>&amp;Dossier</translation>
        </message>
        <message>
            <source>&amp;URL</source>
            <translation>&amp;URL</translation>
        </message>
        <message>
            <source>&amp;Headers</source>
            <translation>&amp;En-têtes</translation>
        </message>
        <message>
            <source>Sign-in app</source>
            <translation>Application de connexion</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>stderr du serveur</translation>
        </message>
        <message>
            <source>Server status</source>
            <translation>État du serveur</translation>
        </message>
        <message>
            <source>Restart</source>
            <translation>Redémarrer</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>Afficher stderr</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Outil</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Activé</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Règle</translation>
        </message>
        <message>
            <source>Tools of this server</source>
            <translation>Outils de ce serveur</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>Environnement</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>En-têtes</translation>
        </message>
        <message>
            <source>Arguments: a quotation mark is not closed, or the text ends with a backslash.</source>
            <translation>Arguments : un guillemet n’est pas fermé, ou le texte se termine par une barre oblique inverse.</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Règle pour {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Par défaut ({policy})</translation>
        </message>
        <message>
            <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
            <translation>Réglages → Outils règle cet outil sur {policy}, ce qui l’emporte sur ce choix</translation>
        </message>
        <message>
            <source>Sign in to use its tools.</source>
            <translation>Connectez-vous pour utiliser ses outils.</translation>
        </message>
        <message>
            <source>Its tools are listed here once it runs.</source>
            <translation>Ses outils apparaissent ici une fois qu’il tourne.</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>Masquer stderr</translation>
        </message>
        <message>
            <source>(the server is not started)</source>
            <translation>(le serveur n’est pas démarré)</translation>
        </message>
        <message>
            <source>(nothing written yet)</source>
            <translation>(rien d’écrit pour l’instant)</translation>
        </message>
    </context>
    <context>
        <name>McpSignInRow</name>
        <message>
            <source>Sign-in status</source>
            <translation>État de la connexion</translation>
        </message>
        <message>
            <source>Sign in</source>
            <translation>Se connecter</translation>
        </message>
        <message>
            <source>Sign in to this server in your browser</source>
            <translation>Se connecter à ce serveur dans le navigateur</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>Se déconnecter</translation>
        </message>
        <message>
            <source>Forget this server's sign-in</source>
            <translation>Oublier la connexion à ce serveur</translation>
        </message>
        <message>
            <source>Cancel sign-in</source>
            <translation>Annuler la connexion</translation>
        </message>
        <message>
            <source>Stop waiting for the browser</source>
            <translation>Ne plus attendre le navigateur</translation>
        </message>
        <message>
            <source>Signing out…</source>
            <translation>Déconnexion…</translation>
        </message>
        <message>
            <source>Waiting for you to finish signing in in the browser…</source>
            <translation>En attente de la fin de la connexion dans le navigateur…</translation>
        </message>
        <message>
            <source>This server needs you to sign in.</source>
            <translation>Ce serveur demande que vous vous connectiez.</translation>
        </message>
        <message>
            <source>Signed in.</source>
            <translation>Connecté.</translation>
        </message>
        <message>
            <source>No sign-in used.</source>
            <translation>Aucune connexion utilisée.</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotices</name>
        <message>
            <source>Memory removed: {fact}</source>
            <translation>Souvenir supprimé : {fact}</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Memory saved: {fact}</source>
            <translation>Souvenir enregistré : {fact}</translation>
        </message>
    </context>
    <context>
        <name>MemoryPage</name>
        <message>
            <source>Remember facts about me across chats</source>
            <translation>Retenir des faits sur moi d'une discussion à l'autre</translation>
        </message>
        <message>
            <source>Off: memory is paused; no memory is sent to the model and none is saved</source>
            <translation>Désactivé : la mémoire est en pause ; aucun souvenir n'est envoyé au modèle ni enregistré</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Mémoire</translation>
        </message>
        <message>
            <source>When the assistant wants to remember something</source>
            <translation>Quand l'assistant veut retenir quelque chose</translation>
        </message>
        <message>
            <source>Ask me first</source>
            <translation>Me demander d'abord</translation>
        </message>
        <message>
            <source>Save without asking</source>
            <translation>Enregistrer sans demander</translation>
        </message>
        <message>
            <source>New memories</source>
            <translation>Nouveaux souvenirs</translation>
        </message>
        <message>
            <source>Say “remember that…” in a chat, or the assistant may propose a memory. Memories stay on this computer; they are in exports and sync (encrypted), and are sent only in the system prompt of your chats. Temporary chats use none.</source>
            <translation>Dites « retiens que… » dans une discussion, ou l'assistant peut proposer un souvenir. Les souvenirs restent sur cet ordinateur ; ils figurent dans les exports et la synchronisation (chiffrée), et ne sont envoyés que dans l'invite système de vos discussions. Les discussions temporaires n'en utilisent aucun.</translation>
        </message>
        <message>
            <source>Search memories…</source>
            <translation>Rechercher dans les souvenirs…</translation>
        </message>
        <message>
            <source>Search memories</source>
            <translation>Rechercher dans les souvenirs</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>Souvenirs</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>Modifier…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>Delete all…</source>
            <translation>Tout supprimer…</translation>
        </message>
        <message>
            <source>In a project only</source>
            <translation>Dans un projet seulement</translation>
        </message>
        <message>
            <source>In every chat</source>
            <translation>Dans toutes les discussions</translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n souvenir</numerusform>
                <numerusform>%n souvenirs</numerusform>
            </translation>
        </message>
        <message>
            <source>No memory matches the search.</source>
            <translation>Aucun souvenir ne correspond à la recherche.</translation>
        </message>
        <message>
            <source>No memories yet.</source>
            <translation>Aucun souvenir pour l'instant.</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>Modifier le souvenir</translation>
        </message>
        <message>
            <source>What the assistant remembers:</source>
            <translation>Ce dont l'assistant se souvient :</translation>
        </message>
        <message>
            <source>Delete all memories</source>
            <translation>Supprimer tous les souvenirs</translation>
        </message>
        <message>
            <source>Delete every memory? The assistant forgets all it knows about you; this cannot be undone.</source>
            <translation>Supprimer tous les souvenirs ? L'assistant oublie tout ce qu'il sait de vous ; c'est irréversible.</translation>
        </message>
        <message>
            <source>Delete all</source>
            <translation>Tout supprimer</translation>
        </message>
    </context>
    <context>
        <name>MessageAccessibility</name>
        <message>
            <source>Code block, {language}</source>
            <translation>Bloc de code, {language}</translation>
        </message>
        <message>
            <source>plain text</source>
            <translation>texte brut</translation>
        </message>
        <message>
            <source>Equation</source>
            <translation>Équation</translation>
        </message>
        <message>
            <source>Quote</source>
            <translation>Citation</translation>
        </message>
        <message>
            <source>Table, {rows} rows, {columns} columns</source>
            <translation>Tableau, {rows} lignes, {columns} colonnes</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Raisonnement</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>Votre message</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Réponse</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Message</translation>
        </message>
        <message>
            <source>Being written</source>
            <translation>En cours d’écriture</translation>
        </message>
    </context>
    <context>
        <name>MessageHeader</name>
        <message>
            <source>Copy</source>
            <extracomment>Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.</extracomment>
            <translation>Copier</translation>
        </message>
        <message>
            <source>Copy this message as Markdown (the arrow has more)</source>
            <translation>Copier ce message en Markdown (la flèche propose d’autres choix)</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>Copier le message</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Plus d’actions</translation>
        </message>
        <message>
            <source>More: continue, fork into a new chat, delete</source>
            <translation>Plus : poursuivre, dériver une nouvelle discussion, supprimer</translation>
        </message>
        <message>
            <source>Continue this answer</source>
            <translation>Poursuivre cette réponse</translation>
        </message>
        <message>
            <source>Fork into a new chat from here</source>
            <translation>Dériver une nouvelle discussion à partir d’ici</translation>
        </message>
        <message>
            <source>Ask other models…</source>
            <translation>Demander à d’autres modèles…</translation>
        </message>
        <message>
            <source>Delete this and what follows…</source>
            <translation>Supprimer ce message et la suite…</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>Lire à voix haute</translation>
        </message>
        <message>
            <source>Preview this page…</source>
            <translation>Aperçu de cette page…</translation>
        </message>
        <message>
            <source>Opens in your browser: this runs the model's code, with every network request blocked</source>
            <translation>S'ouvre dans le navigateur : cela exécute le code du modèle, toute requête réseau étant bloquée</translation>
        </message>
        <message>
            <source>Inspect the request…</source>
            <translation>Inspecter la requête…</translation>
        </message>
        <message>
            <source>What was sent, what came back, timings, Replay</source>
            <translation>Ce qui a été envoyé, ce qui est revenu, les durées, Rejouer</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Reasoning</source>
            <translation>Raisonnement</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>Afficher le raisonnement</translation>
        </message>
        <message>
            <source>You asked to continue · {time}</source>
            <translation>Vous avez demandé la suite · {time}</translation>
        </message>
        <message>
            <source>You · {time}</source>
            <translation>Vous · {time}</translation>
        </message>
        <message>
            <source>Assistant · {model} · {time}</source>
            <translation>Assistant · {model} · {time}</translation>
        </message>
        <message>
            <source>Assistant · {time}</source>
            <translation>Assistant · {time}</translation>
        </message>
        <message>
            <source>■ Stopped</source>
            <translation>■ Arrêté</translation>
        </message>
        <message>
            <source>⚠ Interrupted — the app closed while this answer was streaming</source>
            <translation>⚠ Interrompu — l’application a été fermée pendant l’arrivée de cette réponse</translation>
        </message>
        <message>
            <source>Show more</source>
            <translation>Afficher plus</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Afficher moins</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Réflexion…</translation>
        </message>
        <message>
            <source>Thought for {seconds} s</source>
            <translation>Réflexion pendant {seconds} s</translation>
        </message>
        <message>
            <source>Copy message as Markdown</source>
            <translation>Copier le message en Markdown</translation>
        </message>
        <message>
            <source>Copy message as plain text</source>
            <translation>Copier le message en texte brut</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>Copier en Markdown</translation>
        </message>
        <message>
            <source>Copy as plain text</source>
            <translation>Copier en texte brut</translation>
        </message>
        <message>
            <source>Copy code block {number}: {start}</source>
            <translation>Copier le bloc de code {number} : {start}</translation>
        </message>
    </context>
    <context>
        <name>MicButton</name>
        <message>
            <source>Recording… click to stop</source>
            <translation>Enregistrement… cliquez pour arrêter</translation>
        </message>
        <message>
            <source>Stop and write down what you said</source>
            <translation>Arrêter et écrire ce que vous avez dit</translation>
        </message>
        <message>
            <source>Stop dictation</source>
            <translation>Arrêter la dictée</translation>
        </message>
        <message>
            <source>Writing it down…</source>
            <translation>Transcription en cours…</translation>
        </message>
        <message>
            <source>Your recording is being written down</source>
            <translation>Votre enregistrement est en cours de transcription</translation>
        </message>
        <message>
            <source>Transcribing</source>
            <translation>Transcription</translation>
        </message>
        <message>
            <source>Dictate (failed)</source>
            <translation>Dicter (échec)</translation>
        </message>
        <message>
            <source>Dictate: record what you say, then edit the text before sending</source>
            <translation>Dicter : enregistre ce que vous dites, puis modifiez le texte avant l'envoi</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>Dicter</translation>
        </message>
    </context>
    <context>
        <name>ModelPicker</name>
        <message>
            <source>Search models, or type a model id</source>
            <translation>Rechercher des modèles ou taper un identifiant</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Rechercher des modèles</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modèles</translation>
        </message>
        <message>
            <source>No model matches. Press Enter to use the text as a model id.</source>
            <translation>Aucun modèle ne correspond. Appuyez sur Entrée pour utiliser le texte comme identifiant de modèle.</translation>
        </message>
        <message>
            <source>A model id has no spaces: nothing was changed.</source>
            <translation>Un identifiant de modèle ne contient pas d’espace : rien n’a été modifié.</translation>
        </message>
    </context>
    <context>
        <name>ModelWords</name>
        <message>
            <source>Favourites</source>
            <translation>Favoris</translation>
        </message>
        <message>
            <source>Recent</source>
            <translation>Récents</translation>
        </message>
        <message>
            <source>makes images</source>
            <translation>crée des images</translation>
        </message>
        <message>
            <source>tools</source>
            <translation>outils</translation>
        </message>
        <message>
            <source>images</source>
            <translation>images</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>raisonnement</translation>
        </message>
    </context>
    <context>
        <name>PageCount</name>
        <message numerus="yes">
            <source>%n slide(s)</source>
            <translation>
                <numerusform>%n diapositive</numerusform>
                <numerusform>%n diapositives</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sheet(s)</source>
            <translation>
                <numerusform>%n feuille</numerusform>
                <numerusform>%n feuilles</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n chapter(s)</source>
            <translation>
                <numerusform>%n chapitre</numerusform>
                <numerusform>%n chapitres</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s)</source>
            <translation>
                <numerusform>%n page</numerusform>
                <numerusform>%n pages</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PasteDialog</name>
        <message>
            <source>Paste MCP servers</source>
            <translation>Coller des serveurs MCP</translation>
        </message>
        <message>
            <source>Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</source>
            <translation>Collez une configuration au format Claude Desktop, p. ex. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</translation>
        </message>
        <message>
            <source>MCP configuration JSON</source>
            <translation>JSON de configuration MCP</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importer</translation>
        </message>
    </context>
    <context>
        <name>PricesDialog</name>
        <message>
            <source>Model id</source>
            <translation>Identifiant du modèle</translation>
        </message>
        <message>
            <source>Input $/M</source>
            <translation>Entrée $/M</translation>
        </message>
        <message>
            <source>Output $/M</source>
            <translation>Sortie $/M</translation>
        </message>
        <message>
            <source>Cached input $/M</source>
            <translation>Entrée en cache $/M</translation>
        </message>
        <message>
            <source>Model prices</source>
            <translation>Prix des modèles</translation>
        </message>
        <message>
            <source>Costs use the provider's own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
            <translation>Les coûts utilisent le chiffre du fournisseur s’il en donne un, sinon ces prix, sinon une table intégrée de modèles courants. Les prix sont en dollars US par million de jetons ; l’identifiant du modèle doit correspondre exactement.</translation>
        </message>
        <message>
            <source>Add row</source>
            <translation>Ajouter une ligne</translation>
        </message>
        <message>
            <source>Remove row</source>
            <translation>Retirer la ligne</translation>
        </message>
        <message>
            <source>Row {row}: enter a model id.</source>
            <translation>Ligne {row} : saisissez un identifiant de modèle.</translation>
        </message>
        <message>
            <source>Row {row}: prices must be numbers.</source>
            <translation>Ligne {row} : les prix doivent être des nombres.</translation>
        </message>
        <message>
            <source>Row {row}: enter input and output prices.</source>
            <translation>Ligne {row} : saisissez les prix d’entrée et de sortie.</translation>
        </message>
        <message>
            <source>Row {row}: prices cannot be negative.</source>
            <translation>Ligne {row} : les prix ne peuvent pas être négatifs.</translation>
        </message>
    </context>
    <context>
        <name>ProjectActions</name>
        <message>
            <source>New chat in the project “{name}”: its instructions and files are part of every answer.</source>
            <translation>Nouvelle discussion dans le projet « {name} » : ses instructions et ses fichiers font partie de chaque réponse.</translation>
        </message>
        <message>
            <source>New chat in the project {name}</source>
            <translation>Nouvelle discussion dans le projet {name}</translation>
        </message>
        <message>
            <source>Delete the project “{name}”?</source>
            <translation>Supprimer le projet « {name} » ?</translation>
        </message>
        <message numerus="yes">
            <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
            <translation>
                <numerusform>Sa %n discussion est conservée et sort du projet. Ses instructions et le texte de ses fichiers sont supprimés.</numerusform>
                <numerusform>Ses %n discussions sont conservées et sortent du projet. Ses instructions et le texte de ses fichiers sont supprimés.</numerusform>
            </translation>
        </message>
        <message>
            <source>Delete project</source>
            <translation>Supprimer le projet</translation>
        </message>
        <message numerus="yes">
            <source>Deleted the project {name}; its %n chats are in the list.</source>
            <translation>
                <numerusform>Projet {name} supprimé ; sa %n discussion est dans la liste.</numerusform>
                <numerusform>Projet {name} supprimé ; ses %n discussions sont dans la liste.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ProjectPage</name>
        <message>
            <source>e.g. Thesis, Garden, Client X</source>
            <translation>p. ex. Thèse, Jardin, Client X</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Nom</translation>
        </message>
        <message>
            <source>What every chat in this project should know or do. Added after the assistant's prompt.</source>
            <translation>Ce que chaque discussion de ce projet doit savoir ou faire. Ajouté après le prompt de l’assistant.</translation>
        </message>
        <message>
            <source>Instructions</source>
            <translation>Instructions</translation>
        </message>
        <message>
            <source>The provider's default</source>
            <translation>Celui du fournisseur par défaut</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Modèle par défaut</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Aucun</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Choisir…</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Dossier de travail</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Bases de connaissances</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>Fichiers</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Discussions</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Seulement ces outils</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Seulement ces outils (sinon les réglages d’outils de l’application)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Outils activés</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Outils</translation>
        </message>
        <message>
            <source>Every chat in the project has these: small text files whole, larger ones searched.</source>
            <translation>Chaque discussion du projet les a : les petits fichiers texte en entier, les plus grands par recherche.</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Ajouter des fichiers…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>New chat in this project</source>
            <translation>Nouvelle discussion dans ce projet</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Supprimer le projet…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Enregistrer</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>Project: {name}</source>
            <translation>Projet : {name}</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Nouveau projet</translation>
        </message>
        <message>
            <source>No knowledge bases yet.</source>
            <translation>Pas encore de base de connaissances.</translation>
        </message>
        <message>
            <source>in every chat</source>
            <translation>dans chaque discussion</translation>
        </message>
        <message>
            <source>searched when needed</source>
            <translation>recherché au besoin</translation>
        </message>
        <message>
            <source>No chats yet. Start one, or drag a chat onto the project in the list.</source>
            <translation>Pas encore de discussion. Commencez-en une, ou faites glisser une discussion sur le projet dans la liste.</translation>
        </message>
        <message>
            <source>Adding…</source>
            <translation>Ajout…</translation>
        </message>
        <message>
            <source>Add files to the project</source>
            <translation>Ajouter des fichiers au projet</translation>
        </message>
    </context>
    <context>
        <name>ProjectSection</name>
        <message>
            <source>Projects</source>
            <translation>Projets</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Nouveau projet</translation>
        </message>
        <message>
            <source>Drag a chat here to move it into a project</source>
            <translation>Faites glisser une discussion ici pour la placer dans un projet</translation>
        </message>
        <message>
            <source>Group chats with shared instructions and files.</source>
            <translation>Regroupez des discussions avec des instructions et des fichiers partagés.</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n discussion</numerusform>
                <numerusform>%n discussions</numerusform>
            </translation>
        </message>
        <message>
            <source>Open project</source>
            <translation>Ouvrir le projet</translation>
        </message>
        <message>
            <source>New chat in project</source>
            <translation>Nouvelle discussion dans le projet</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Supprimer le projet…</translation>
        </message>
    </context>
    <context>
        <name>PromptArgumentsDialog</name>
        <message>
            <source>/{0}</source>
            <translation>/{0}</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>Fill in: {0}</source>
            <translation>À remplir : {0}</translation>
        </message>
    </context>
    <context>
        <name>ProviderDialog</name>
        <message>
            <source>Providers</source>
            <translation>Fournisseurs</translation>
        </message>
        <message>
            <source>Add to my providers</source>
            <translation>Ajouter à mes fournisseurs</translation>
        </message>
        <message>
            <source>Add detected provider to my providers</source>
            <translation>Ajouter le fournisseur détecté à mes fournisseurs</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Enregistrer</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>New provider</source>
            <translation>Nouveau fournisseur</translation>
        </message>
        <message>
            <source>Discard your changes to “{name}”?</source>
            <translation>Abandonner vos modifications de « {name} » ?</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>Modifications non enregistrées</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Enregistré.</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its saved API key is deleted too.</source>
            <translation>Retirer « {name} » ? Sa clé d’API enregistrée est aussi supprimée.</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Retirer le fournisseur</translation>
        </message>
        <message>
            <source>Added to your providers.</source>
            <translation>Ajouté à vos fournisseurs.</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Header line {number} should look like “Name: value”</source>
            <translation>La ligne d’en-tête {number} doit avoir la forme « Nom: valeur »</translation>
        </message>
        <message>
            <source>Provider name</source>
            <translation>Nom du fournisseur</translation>
        </message>
        <message>
            <source>A name you will recognize</source>
            <translation>Un nom que vous reconnaîtrez</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Nom</translation>
        </message>
        <message>
            <source>Preset</source>
            <translation>Modèle prédéfini</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>URL de base</translation>
        </message>
        <message>
            <source>https://example.com/v1</source>
            <translation>https://example.com/v1</translation>
        </message>
        <message>
            <source>Base &amp;URL</source>
            <translation>&amp;URL de base</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>Clé d’API</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>Afficher</translation>
        </message>
        <message>
            <source>Show API key</source>
            <translation>Afficher la clé d’API</translation>
        </message>
        <message>
            <source>Get a key</source>
            <translation>Obtenir une clé</translation>
        </message>
        <message>
            <source>API &amp;key</source>
            <translation>&amp;Clé d’API</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>Récupérer les modèles</translation>
        </message>
        <message>
            <source>Ask the provider which models it offers</source>
            <translation>Demander au fournisseur quels modèles il propose</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>&amp;Modèle</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>En-têtes supplémentaires</translation>
        </message>
        <message>
            <source>Optional, one per line — Name: value</source>
            <translation>Facultatif, un par ligne — Nom: valeur</translation>
        </message>
        <message>
            <source>Extra &amp;headers</source>
            <translation>&amp;En-têtes supplémentaires</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Tester la connexion</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>État de la connexion</translation>
        </message>
        <message>
            <source>an environment variable</source>
            <translation>une variable d’environnement</translation>
        </message>
        <message>
            <source>Read from {variable} (never stored by Assista)</source>
            <translation>Lue depuis {variable} (jamais enregistrée par Assista)</translation>
        </message>
        <message>
            <source>Not needed for {name} (optional)</source>
            <translation>Inutile pour {name} (facultatif)</translation>
        </message>
        <message>
            <source>Paste your API key</source>
            <translation>Collez votre clé d’API</translation>
        </message>
        <message>
            <source>Enter a name.</source>
            <translation>Saisissez un nom.</translation>
        </message>
        <message>
            <source>Enter the base URL (for example https://api.openai.com/v1).</source>
            <translation>Saisissez l’URL de base (par exemple https://api.openai.com/v1).</translation>
        </message>
        <message>
            <source>The base URL must start with http:// or https:// and name a server.</source>
            <translation>L’URL de base doit commencer par http:// ou https:// et désigner un serveur.</translation>
        </message>
        <message>
            <source>Put the key in the API key field, not in the {name} header.</source>
            <translation>Mettez la clé dans le champ Clé d’API, pas dans l’en-tête {name}.</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>En cours…</translation>
        </message>
        <message>
            <source>✗ Internal error: no asyncio event loop is running.</source>
            <translation>✗ Erreur interne : aucune boucle d’événements asyncio n’est active.</translation>
        </message>
        <message>
            <source>Testing connection…</source>
            <translation>Test de la connexion…</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>Récupération des modèles…</translation>
        </message>
        <message>
            <source>Unexpected error: {error}</source>
            <translation>Erreur inattendue : {error}</translation>
        </message>
        <message numerus="yes">
            <source>✓ Connected — %n models</source>
            <translation>
                <numerusform>✓ Connecté — %n modèle</numerusform>
                <numerusform>✓ Connecté — %n modèles</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>✓ %n models found</source>
            <translation>
                <numerusform>✓ %n modèle trouvé</numerusform>
                <numerusform>✓ %n modèles trouvés</numerusform>
            </translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>Masquer</translation>
        </message>
        <message>
            <source>Hide API key</source>
            <translation>Masquer la clé d’API</translation>
        </message>
    </context>
    <context>
        <name>ProviderList</name>
        <message>
            <source>Providers</source>
            <translation>Fournisseurs</translation>
        </message>
        <message>
            <source>Add provider</source>
            <translation>Ajouter un fournisseur</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Retirer le fournisseur</translation>
        </message>
        <message>
            <source>No base URL yet</source>
            <translation>Pas encore d’URL de base</translation>
        </message>
    </context>
    <context>
        <name>ProviderOptionsBox</name>
        <message>
            <source>Tools</source>
            <translation>Outils</translation>
        </message>
        <message>
            <source>Tools capability</source>
            <translation>Capacité : outils</translation>
        </message>
        <message>
            <source>Images</source>
            <translation>Images</translation>
        </message>
        <message>
            <source>Images capability</source>
            <translation>Capacité : images</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Raisonnement</translation>
        </message>
        <message>
            <source>Reasoning capability</source>
            <translation>Capacité : raisonnement</translation>
        </message>
        <message>
            <source>minimal</source>
            <translation>minimal</translation>
        </message>
        <message>
            <source>low</source>
            <translation>faible</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>moyen</translation>
        </message>
        <message>
            <source>high</source>
            <translation>élevé</translation>
        </message>
        <message>
            <source>Model behaviour</source>
            <translation>Comportement du modèle</translation>
        </message>
        <message>
            <source>Ask the model to think before answering</source>
            <translation>Demander au modèle de réfléchir avant de répondre</translation>
        </message>
        <message>
            <source>Extended thinking</source>
            <translation>Réflexion approfondie</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> jetons</translation>
        </message>
        <message>
            <source>Thinking budget</source>
            <translation>Budget de réflexion</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Effort de raisonnement</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Réflexion</translation>
        </message>
        <message>
            <source>Chain responses on the server (previous_response_id)</source>
            <translation>Chaîner les réponses sur le serveur (previous_response_id)</translation>
        </message>
        <message>
            <source>Stateless replay (store: false)</source>
            <translation>Relecture sans état (store: false)</translation>
        </message>
        <message>
            <source>Responses API mode</source>
            <translation>Mode de l’API Responses</translation>
        </message>
        <message>
            <source>Conversation state</source>
            <translation>État de la conversation</translation>
        </message>
        <message>
            <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
            <translation>Coché : le modèle sait faire · Décoché : il ne sait pas · Partiellement coché : selon le nom du modèle</translation>
        </message>
        <message>
            <source>Capabilities</source>
            <translation>Capacités</translation>
        </message>
    </context>
    <context>
        <name>ProviderText</name>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>Personnalisé (compatible OpenAI)</translation>
        </message>
        <message>
            <source>{name} — not saved</source>
            <translation>{name} — non enregistré</translation>
        </message>
        <message>
            <source>{name} — from environment ({variable})</source>
            <translation>{name} — depuis l’environnement ({variable})</translation>
        </message>
        <message>
            <source>no key</source>
            <translation>pas de clé</translation>
        </message>
        <message>
            <source>{name} — detected</source>
            <translation>{name} — détecté</translation>
        </message>
        <message>
            <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
            <translation>Depuis l’environnement ({variable}). En lecture seule ici : sa clé reste dans l’environnement et n’est jamais copiée dans Assista.</translation>
        </message>
        <message>
            <source>{name} is running on this computer. Add it to edit it.</source>
            <translation>{name} tourne sur cet ordinateur. Ajoutez-le pour le modifier.</translation>
        </message>
        <message>
            <source>The key is read from {variable} each time Assista starts.</source>
            <translation>La clé est lue depuis {variable} à chaque démarrage d’Assista.</translation>
        </message>
        <message>
            <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
            <translation>Aucun trousseau système trouvé : les clés sont stockées dans un fichier lisible par vous seul ({file})</translation>
        </message>
        <message>
            <source>Keys are stored in the system keyring ({keyring})</source>
            <translation>Les clés sont stockées dans le trousseau du système ({keyring})</translation>
        </message>
    </context>
    <context>
        <name>QuickAsk</name>
        <message>
            <source>&amp;Quick ask…</source>
            <extracomment>an answer in the quick window finished: chat title, answer, failed, the quick window started alone (``assista quick``), put away, and the main window is hidden too</extracomment>
            <translation>&amp;Question rapide…</translation>
        </message>
    </context>
    <context>
        <name>QuickAskWindow</name>
        <message>
            <source>Quick ask</source>
            <translation>Question rapide</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>Question</translation>
        </message>
        <message>
            <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
            <translation>Entrée envoie, Maj+Entrée ajoute une ligne, Échap ferme la fenêtre</translation>
        </message>
        <message>
            <source>Ask anything… (Enter sends)</source>
            <translation>Posez une question… (Entrée envoie)</translation>
        </message>
        <message>
            <source>Insert &amp;selection</source>
            <translation>Insérer la &amp;sélection</translation>
        </message>
        <message>
            <source>Insert the text selected in another application (or the clipboard)</source>
            <translation>Insérer le texte sélectionné dans une autre application (ou le presse-papiers)</translation>
        </message>
        <message>
            <source>&amp;Open in the main window</source>
            <translation>&amp;Ouvrir dans la fenêtre principale</translation>
        </message>
        <message>
            <source>Continue this chat in the main window</source>
            <translation>Poursuivre cette discussion dans la fenêtre principale</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>État</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Réponse</translation>
        </message>
        <message>
            <source>Add a provider in the main window first (Settings → Providers).</source>
            <translation>Ajoutez d’abord un fournisseur dans la fenêtre principale (Réglages → Fournisseurs).</translation>
        </message>
        <message>
            <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
            <translation>{tool} attend votre approbation : ouvrez cette discussion dans la fenêtre principale pour répondre.</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Arrêter</translation>
        </message>
        <message>
            <source>Nothing is selected and the clipboard is empty.</source>
            <translation>Rien n’est sélectionné et le presse-papiers est vide.</translation>
        </message>
    </context>
    <context>
        <name>QuitGuard</name>
        <message>
            <source>Quit while answering?</source>
            <translation>Quitter pendant une réponse ?</translation>
        </message>
        <message numerus="yes">
            <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
            <translation>
                <numerusform>%n discussion est encore en train de répondre. Quitter quand même ? Ce qu’elle a déjà écrit est conservé, marqué comme arrêté.</numerusform>
                <numerusform>%n discussions sont encore en train de répondre. Quitter quand même ? Ce qu’elles ont déjà écrit est conservé, marqué comme arrêté.</numerusform>
            </translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>Quitter</translation>
        </message>
    </context>
    <context>
        <name>ReadingBar</name>
        <message>
            <source>Stop</source>
            <translation>Arrêter</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>Arrêter la lecture</translation>
        </message>
        <message>
            <source>Preparing to read aloud…</source>
            <translation>Préparation de la lecture…</translation>
        </message>
        <message>
            <source>Reading aloud</source>
            <translation>Lecture à voix haute</translation>
        </message>
        <message>
            <source>Reading aloud (paused)</source>
            <translation>Lecture à voix haute (en pause)</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Reprendre</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pause</translation>
        </message>
        <message>
            <source>Go on reading</source>
            <translation>Reprendre la lecture</translation>
        </message>
        <message>
            <source>Pause reading</source>
            <translation>Mettre la lecture en pause</translation>
        </message>
    </context>
    <context>
        <name>ReplayView</name>
        <message>
            <source>First token %1 · total %2 · %3 tokens · %4 tok/s</source>
            <translation>Premier jeton %1 · total %2 · %3 jetons · %4 jetons/s</translation>
        </message>
        <message>
            <source>Provider to send to</source>
            <translation>Fournisseur destinataire</translation>
        </message>
        <message>
            <source>Model to send to</source>
            <translation>Modèle destinataire</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Rejouer</translation>
        </message>
        <message>
            <source>Send the same request again (nothing is added to the chat)</source>
            <translation>Renvoyer la même requête (rien n’est ajouté à la discussion)</translation>
        </message>
        <message>
            <source>Not replayed yet</source>
            <translation>Pas encore rejoué</translation>
        </message>
        <message>
            <source>Send to:</source>
            <translation>Envoyer à :</translation>
        </message>
        <message>
            <source>No provider is configured.</source>
            <translation>Aucun fournisseur n’est configuré.</translation>
        </message>
        <message>
            <source>Sending the request again…</source>
            <translation>Renvoi de la requête…</translation>
        </message>
        <message>
            <source>Replay failed.</source>
            <translation>Échec du rejeu.</translation>
        </message>
        <message>
            <source>Replayed.</source>
            <translation>Rejoué.</translation>
        </message>
    </context>
    <context>
        <name>RequestInspector</name>
        <message>
            <source>There is no answer in this chat to inspect yet.</source>
            <translation>Il n’y a pas encore de réponse à inspecter dans cette discussion.</translation>
        </message>
        <message>
            <source>The recorded requests cannot be read: %1</source>
            <translation>Impossible de lire les requêtes enregistrées : %1</translation>
        </message>
        <message>
            <source>No request was recorded for this answer. Recording may be off in Settings, or the record is older than the retention period.</source>
            <translation>Aucune requête n’a été enregistrée pour cette réponse. L’enregistrement est peut-être désactivé dans les Réglages, ou il est plus ancien que la durée de conservation.</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspecteur de requêtes</translation>
        </message>
    </context>
    <context>
        <name>ResearchPanel</name>
        <message>
            <source>Research progress</source>
            <translation>Progression de la recherche</translation>
        </message>
        <message>
            <source>Research status</source>
            <translation>État de la recherche</translation>
        </message>
        <message>
            <source>Hide the research progress</source>
            <translation>Masquer la progression de la recherche</translation>
        </message>
        <message>
            <source>Research time, tokens and cost</source>
            <translation>Durée, jetons et coût de la recherche</translation>
        </message>
        <message>
            <source>Plan:</source>
            <translation>Plan :</translation>
        </message>
        <message numerus="yes">
            <source>Searches (%n):</source>
            <translation>
                <numerusform>Recherches (%n) :</numerusform>
                <numerusform>Recherches (%n) :</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Sources read (%n):</source>
            <translation>
                <numerusform>Sources lues (%n) :</numerusform>
                <numerusform>Sources lues (%n) :</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s) could not be read.</source>
            <translation>
                <numerusform>%n page n’a pas pu être lue.</numerusform>
                <numerusform>%n pages n’ont pas pu être lues.</numerusform>
            </translation>
        </message>
        <message>
            <source>Research: making a plan…</source>
            <translation>Recherche : élaboration d’un plan…</translation>
        </message>
        <message>
            <source>Research: searching…</source>
            <translation>Recherche : recherche en cours…</translation>
        </message>
        <message>
            <source>Research: reading pages…</source>
            <translation>Recherche : lecture des pages…</translation>
        </message>
        <message>
            <source>Research: writing the report…</source>
            <translation>Recherche : rédaction du rapport…</translation>
        </message>
        <message>
            <source>Research finished</source>
            <translation>Recherche terminée</translation>
        </message>
        <message>
            <source>(round {round} of {rounds})</source>
            <translation>(tour {round} sur {rounds})</translation>
        </message>
        <message>
            <source>{elapsed} of {limit}</source>
            <translation>{elapsed} sur {limit}</translation>
        </message>
        <message numerus="yes">
            <source>%n token(s)</source>
            <translation>
                <numerusform>%n jeton</numerusform>
                <numerusform>%n jetons</numerusform>
            </translation>
        </message>
        <message>
            <source>cost unknown</source>
            <translation>coût inconnu</translation>
        </message>
        <message>
            <source>{cost} of {ceiling}</source>
            <translation>{cost} sur {ceiling}</translation>
        </message>
        <message numerus="yes">
            <source>Stopped at the limit of %n search round(s).</source>
            <translation>
                <numerusform>Arrêtée à la limite de %n tour de recherche.</numerusform>
                <numerusform>Arrêtée à la limite de %n tours de recherche.</numerusform>
            </translation>
        </message>
        <message>
            <source>Stopped at the time limit ({limit}).</source>
            <translation>Arrêtée à la limite de temps ({limit}).</translation>
        </message>
        <message>
            <source>Stopped at the cost ceiling ({ceiling}); the report is made of what was found.</source>
            <translation>Arrêtée au plafond de coût ({ceiling}) ; le rapport est fait de ce qui a été trouvé.</translation>
        </message>
        <message>
            <source>Stopped; the report holds what was found so far.</source>
            <translation>Arrêtée ; le rapport contient ce qui a été trouvé jusqu’ici.</translation>
        </message>
        <message>
            <source>The research failed; what was found is kept in the report.</source>
            <translation>La recherche a échoué ; ce qui a été trouvé est conservé dans le rapport.</translation>
        </message>
    </context>
    <context>
        <name>ResponsivePanels</name>
        <message>
            <source>Show the chat list (Ctrl+Shift+L)</source>
            <translation>Afficher la liste des discussions (Ctrl+Maj+L)</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Liste des discussions</translation>
        </message>
    </context>
    <context>
        <name>ResultColumn</name>
        <message>
            <source>Error: %1</source>
            <translation>Erreur : %1</translation>
        </message>
        <message>
            <source>Answer of %1</source>
            <translation>Réponse de %1</translation>
        </message>
    </context>
    <context>
        <name>RetrievalText</name>
        <message>
            <source>Query</source>
            <translation>Requête</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>Rien trouvé.</translation>
        </message>
    </context>
    <context>
        <name>SaveBanner</name>
        <message>
            <source>Retry</source>
            <translation>Réessayer</translation>
        </message>
        <message>
            <source>Try to store the answer again</source>
            <translation>Essayer à nouveau d’enregistrer la réponse</translation>
        </message>
        <message>
            <source>Retry saving the answer</source>
            <translation>Réessayer d’enregistrer la réponse</translation>
        </message>
        <message>
            <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
            <translation>La réponse n’a pas pu être enregistrée : {error}. Elle est conservée ici jusqu’à son enregistrement.</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Enregistrement…</translation>
        </message>
        <message>
            <source>Still not saved: {error}. The answer is kept here; try again.</source>
            <translation>Toujours pas enregistrée : {error}. La réponse est conservée ici ; réessayez.</translation>
        </message>
    </context>
    <context>
        <name>ScopeRow</name>
        <message>
            <source>Always allow for paths matching</source>
            <translation>Toujours autoriser pour les chemins correspondant à</translation>
        </message>
        <message>
            <source>Always allow for the command</source>
            <translation>Toujours autoriser pour la commande</translation>
        </message>
        <message>
            <source>Always allow needs a scope: type one, or allow once.</source>
            <translation>« Toujours autoriser » demande une portée : saisissez-en une, ou autorisez une fois.</translation>
        </message>
        <message>
            <source>The pattern must stay inside the workspace (a relative path).</source>
            <translation>Le motif doit rester dans l’espace de travail (un chemin relatif).</translation>
        </message>
        <message>
            <source>Files in a .git folder are never allowed without asking.</source>
            <translation>Les fichiers d’un dossier .git ne sont jamais autorisés sans demander.</translation>
        </message>
        <message>
            <source>A command with shell syntax ($ ` ; | &amp; &gt; &lt; \, a line break, or * ? ~ ( ) outside quotes) cannot be always allowed.</source>
            <translation>Une commande avec une syntaxe du shell ($ ` ; | &amp; &gt; &lt; \, un saut de ligne, ou * ? ~ ( ) hors des guillemets) ne peut pas être toujours autorisée.</translation>
        </message>
        <message>
            <source>A host is a name such as api.example.com or *.example.com.</source>
            <translation>Un hôte est un nom comme api.example.com ou *.example.com.</translation>
        </message>
        <message>
            <source>This call cannot be always allowed.</source>
            <translation>Cet appel ne peut pas être toujours autorisé.</translation>
        </message>
        <message>
            <source>Writes to paths matching {scope} (never inside .git) run without asking, in every chat.</source>
            <translation>Les écritures dans les chemins correspondant à {scope} (jamais dans .git) s’exécutent sans demander, dans toutes les conversations.</translation>
        </message>
        <message>
            <source>Fetches from {scope} run without asking, in every chat.</source>
            <translation>Les récupérations depuis {scope} s’exécutent sans demander, dans toutes les conversations.</translation>
        </message>
        <message>
            <source>“{scope}” runs without asking, in every chat, with its read-only options and arguments inside the workspace; anything else asks again.</source>
            <translation>« {scope} » s’exécute sans demander, dans toutes les conversations, avec ses options en lecture seule et des arguments dans l’espace de travail ; tout le reste redemande.</translation>
        </message>
        <message>
            <source>Exactly the command “{scope}” runs without asking, in every chat; any other asks again.</source>
            <translation>Exactement la commande « {scope} » s’exécute sans demander, dans toutes les conversations ; toute autre redemande.</translation>
        </message>
        <message>
            <source>What “Always allow” grants: calls inside it will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
            <translation>Ce qu’accorde « Toujours autoriser » : les appels dans cette portée s’exécuteront sans demander, dans toutes les conversations ; les autres demandent toujours. Révoquez-le dans Réglages → Outils.</translation>
        </message>
        <message>
            <source>Always allow for the host</source>
            <translation>Toujours autoriser pour l’hôte</translation>
        </message>
    </context>
    <context>
        <name>SearchDialog</name>
        <message>
            <source>d MMM</source>
            <translation>d MMM</translation>
        </message>
        <message>
            <source>Search chats</source>
            <translation>Rechercher dans les discussions</translation>
        </message>
        <message>
            <source>Search every chat — words, "exact phrases", any language</source>
            <translation>Rechercher dans toutes les discussions — mots, "expressions exactes", toute langue</translation>
        </message>
        <message>
            <source>Search results</source>
            <translation>Résultats de la recherche</translation>
        </message>
        <message>
            <source>No matches.</source>
            <translation>Aucun résultat.</translation>
        </message>
        <message numerus="yes">
            <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n résultat (les plus récents affichés) · Entrée ouvre · ↑↓ déplace · Échap ferme</numerusform>
                <numerusform>%n résultats (les plus récents affichés) · Entrée ouvre · ↑↓ déplace · Échap ferme</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n résultat · Entrée ouvre · ↑↓ déplace · Échap ferme</numerusform>
                <numerusform>%n résultats · Entrée ouvre · ↑↓ déplace · Échap ferme</numerusform>
            </translation>
        </message>
        <message>
            <source>Type to search every chat, every branch, tool calls and titles.</source>
            <translation>Tapez pour chercher dans toutes les discussions, toutes les branches, les appels d’outils et les titres.</translation>
        </message>
    </context>
    <context>
        <name>SectionDelegate</name>
        <message numerus="yes">
            <source>%n messages</source>
            <translation>
                <numerusform>%n message</numerusform>
                <numerusform>%n messages</numerusform>
            </translation>
        </message>
        <message>
            <source>Now: {state}</source>
            <translation>Maintenant : {state}</translation>
        </message>
    </context>
    <context>
        <name>Segment</name>
        <message>
            <source>Copy</source>
            <translation>Copier</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>Enregistrer…</translation>
        </message>
        <message>
            <source>Picture</source>
            <translation>Image</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Source</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Aperçu</translation>
        </message>
        <message>
            <source>Open in your browser: this runs the model's code, with every network request blocked</source>
            <translation>Ouvrir dans le navigateur : cela exécute le code du modèle, toute requête réseau étant bloquée</translation>
        </message>
        <message>
            <source>Show the code, or the drawing</source>
            <translation>Afficher le code ou le dessin</translation>
        </message>
        <message>
            <source>Save this as a file</source>
            <translation>Enregistrer ceci dans un fichier</translation>
        </message>
        <message>
            <source>The preview runs the model's code in your web browser. Every network request from it is blocked, so it cannot send anything anywhere or load anything. Open it?</source>
            <translation>L'aperçu exécute le code du modèle dans votre navigateur. Toute requête réseau qu'il fait est bloquée : il ne peut rien envoyer nulle part ni rien charger. L'ouvrir ?</translation>
        </message>
        <message>
            <source>This build has no mermaid.js, so diagrams cannot be previewed.</source>
            <translation>Cette version n'a pas mermaid.js : les diagrammes ne peuvent pas être prévisualisés.</translation>
        </message>
        <message>
            <source>Could not write the preview: {error}</source>
            <translation>Impossible d'écrire l'aperçu : {error}</translation>
        </message>
        <message>
            <source>Save as</source>
            <translation>Enregistrer sous</translation>
        </message>
        <message>
            <source>{kind} files (*{suffix});;All files (*)</source>
            <translation>Fichiers {kind} (*{suffix});;Tous les fichiers (*)</translation>
        </message>
        <message>
            <source>Could not save {path}: {error}</source>
            <translation>Impossible d'enregistrer {path} : {error}</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>Copié</translation>
        </message>
    </context>
    <context>
        <name>ServerQuestionCard</name>
        <message>
            <source>MCP server {0} asks</source>
            <translation>Le serveur MCP {0} demande</translation>
        </message>
        <message>
            <source>MCP server {0} wants the model to answer</source>
            <translation>Le serveur MCP {0} veut que le modèle réponde</translation>
        </message>
        <message>
            <source>In “{0}”</source>
            <translation>Dans « {0} »</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Ouvrir</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Terminé</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>Decline</source>
            <translation>Décliner</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>The messages the server sends</source>
            <translation>Les messages envoyés par le serveur</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>Autoriser</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Refuser</translation>
        </message>
        <message>
            <source>At most {0} tokens.</source>
            <translation>Au plus {0} jetons.</translation>
        </message>
        <message>
            <source>(an image, {0})</source>
            <translation>(une image, {0})</translation>
        </message>
    </context>
    <context>
        <name>SessionItems</name>
        <message>
            <source>waiting for the provider</source>
            <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
            <translation>en attente du fournisseur</translation>
        </message>
        <message>
            <source>answering</source>
            <translation>en train de répondre</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>en attente de votre approbation</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>échec</translation>
        </message>
        <message>
            <source>new answer</source>
            <translation>nouvelle réponse</translation>
        </message>
        <message>
            <source>Today</source>
            <extracomment>The drag of a chat (onto a project): its session id, as UTF-8.</extracomment>
            <translation>Aujourd’hui</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>Hier</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>7 derniers jours</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>Plus anciennes</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>Épinglées</translation>
        </message>
        <message>
            <source>Last changed {time}</source>
            <translation>Dernière modification {time}</translation>
        </message>
        <message>
            <source>Deleted {time}</source>
            <translation>Supprimée {time}</translation>
        </message>
    </context>
    <context>
        <name>SessionList</name>
        <message>
            <source>+  New chat</source>
            <extracomment>Chats added each time the list is scrolled to its end: with thousands of chats, listing them all took hundreds of milliseconds on every change (each sent message; tests/bench/bench_shipped_startup.py). Chats listed at first: more than a tall window's list shows. The window lists them when it is built and again when a question typed while it loaded is sent, both before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.</extracomment>
            <translation>+  Nouvelle discussion</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>Commencer une nouvelle conversation (Ctrl+N)</translation>
        </message>
        <message>
            <source>Search chats…   Ctrl+K</source>
            <translation>Rechercher…   Ctrl+K</translation>
        </message>
        <message>
            <source>Find a chat by a word in it (Ctrl+K)</source>
            <translation>Trouver une discussion par un mot qu’elle contient (Ctrl+K)</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Discussions</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>Vider la corbeille</translation>
        </message>
        <message>
            <source>Show chats</source>
            <translation>Afficher les discussions</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>Archivées</translation>
        </message>
        <message>
            <source>Show archived chats</source>
            <translation>Afficher les discussions archivées</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>Corbeille</translation>
        </message>
        <message>
            <source>Show the trash</source>
            <translation>Afficher la corbeille</translation>
        </message>
        <message numerus="yes">
            <source>Chats here are erased after %n days.</source>
            <translation>
                <numerusform>Les discussions ici sont effacées après %n jour.</numerusform>
                <numerusform>Les discussions ici sont effacées après %n jours.</numerusform>
            </translation>
        </message>
        <message>
            <source>Chats here are erased when the app next starts.</source>
            <translation>Les discussions ici sont effacées au prochain démarrage de l’application.</translation>
        </message>
        <message>
            <source>Archived chats</source>
            <translation>Discussions archivées</translation>
        </message>
        <message>
            <source>No chats yet.</source>
            <translation>Pas encore de discussion.</translation>
        </message>
        <message>
            <source>Archived chats appear here.</source>
            <translation>Les discussions archivées apparaissent ici.</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>La corbeille est vide.</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>Restaurer</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>Supprimer définitivement…</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Ouvrir</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Renommer</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>Désépingler</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>Épingler</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Dupliquer</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>Désarchiver</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>Archiver</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>Move to project</source>
            <translation>Déplacer vers le projet</translation>
        </message>
        <message>
            <source>Remove from project</source>
            <translation>Retirer du projet</translation>
        </message>
        <message>
            <source>the chat</source>
            <translation>la discussion</translation>
        </message>
        <message>
            <source>this chat</source>
            <translation>cette discussion</translation>
        </message>
        <message>
            <source>Delete “{title}” forever? This cannot be undone.</source>
            <translation>Supprimer définitivement « {title} » ? Cette action est irréversible.</translation>
        </message>
        <message>
            <source>Delete every chat in the trash forever? This cannot be undone.</source>
            <translation>Supprimer définitivement toutes les discussions de la corbeille ? Cette action est irréversible.</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>Supprimer définitivement</translation>
        </message>
    </context>
    <context>
        <name>SessionPromptDialog</name>
        <message>
            <source>System prompt of this chat</source>
            <translation>Prompt système de cette discussion</translation>
        </message>
        <message>
            <source>the assistant “{name}”</source>
            <translation>l’assistant « {name} »</translation>
        </message>
        <message>
            <source>the default system prompt (Settings → Preferences)</source>
            <translation>le prompt système par défaut (Réglages → Préférences)</translation>
        </message>
        <message>
            <source>The new chat</source>
            <translation>La nouvelle discussion</translation>
        </message>
        <message>
            <source>Use this chat's own system prompt</source>
            <translation>Utiliser un prompt système propre à cette discussion</translation>
        </message>
        <message>
            <source>Otherwise the chat uses {origin}.</source>
            <translation>Sinon, la discussion utilise {origin}.</translation>
        </message>
        <message>
            <source>Without it, this chat uses {origin}.</source>
            <translation>Sans lui, cette discussion utilise {origin}.</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Prompt système</translation>
        </message>
        <message>
            <source>Full system prompt</source>
            <translation>Prompt système complet</translation>
        </message>
        <message>
            <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
            <translation>Ce qui est envoyé au modèle (avec vos instructions personnalisées, le dossier de travail et la date) :</translation>
        </message>
        <message>
            <source>(no system prompt)</source>
            <translation>(pas de prompt système)</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Follow the system</source>
            <translation>Suivre le système</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Clair</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Sombre</translation>
        </message>
        <message>
            <source>High contrast</source>
            <translation>Contraste élevé</translation>
        </message>
        <message>
            <source>Leave out the oldest turns</source>
            <translation>Omettre les échanges les plus anciens</translation>
        </message>
        <message>
            <source>Replace the oldest turns with a summary</source>
            <translation>Remplacer les échanges les plus anciens par un résumé</translation>
        </message>
        <message>
            <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
            <translation>p. ex. http://proxy.example.com:8080 ou socks5://127.0.0.1:1080</translation>
        </message>
        <message>
            <source>The proxy URL cannot contain spaces ({example}).</source>
            <translation>L’URL du proxy ne peut pas contenir d’espaces ({example}).</translation>
        </message>
        <message>
            <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
            <translation>Le proxy doit commencer par http://, https:// ou socks5:// ({example}).</translation>
        </message>
        <message>
            <source>The proxy URL needs a host name ({example}).</source>
            <translation>L’URL du proxy doit contenir un nom d’hôte ({example}).</translation>
        </message>
        <message>
            <source>The proxy port must be a number from 1 to 65535.</source>
            <translation>Le port du proxy doit être un nombre de 1 à 65535.</translation>
        </message>
        <message>
            <source>The proxy URL is only scheme://host:port ({example}).</source>
            <translation>L’URL du proxy ne contient que schéma://hôte:port ({example}).</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>Préférences</translation>
        </message>
        <message>
            <source>Preferences sections</source>
            <translation>Sections des préférences</translation>
        </message>
        <message>
            <source>General</source>
            <translation>Général</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Discussions</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Mémoire</translation>
        </message>
        <message>
            <source>Network</source>
            <translation>Réseau</translation>
        </message>
        <message>
            <source>Desktop</source>
            <translation>Bureau</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Données</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>Recherche Web</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Compétences</translation>
        </message>
        <message>
            <source>Usage</source>
            <translation>Utilisation</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspecteur de requêtes</translation>
        </message>
        <message>
            <source>Settings error</source>
            <translation>Erreur de réglage</translation>
        </message>
        <message>
            <source>The assistant new chats start with</source>
            <translation>L’assistant avec lequel commencent les nouvelles discussions</translation>
        </message>
        <message>
            <source>Added to every chat: who you are, how you like answers…</source>
            <translation>Ajouté à chaque discussion : qui vous êtes, comment vous aimez les réponses…</translation>
        </message>
        <message>
            <source>Custom instructions</source>
            <translation>Instructions personnalisées</translation>
        </message>
        <message>
            <source>Default system prompt</source>
            <translation>Prompt système par défaut</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Thème</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Langue</translation>
        </message>
        <message>
            <source>Base font size</source>
            <translation>Taille de police de base</translation>
        </message>
        <message>
            <source> pt</source>
            <translation> pt</translation>
        </message>
        <message>
            <source>Default</source>
            <translation>Par défaut</translation>
        </message>
        <message>
            <source>New chats use</source>
            <translation>Les nouvelles discussions utilisent</translation>
        </message>
        <message>
            <source>A chat's own prompt (Chat → Edit system prompt…) or its assistant's replaces the default; custom instructions are always added.</source>
            <translation>Le prompt propre à une discussion (Discussion → Modifier le prompt système…) ou celui de son assistant remplace celui par défaut ; les instructions personnalisées sont toujours ajoutées.</translation>
        </message>
        <message>
            <source>What happens when a chat no longer fits the model's context window (you are told when it does)</source>
            <translation>Ce qui se passe quand une discussion ne tient plus dans la fenêtre de contexte du modèle (vous en êtes informé)</translation>
        </message>
        <message>
            <source> days</source>
            <translation> jours</translation>
        </message>
        <message>
            <source>Erase at the next start</source>
            <translation>Effacer au prochain démarrage</translation>
        </message>
        <message>
            <source>Let the model title new chats</source>
            <translation>Laisser le modèle donner un titre aux nouvelles discussions</translation>
        </message>
        <message>
            <source>After a new chat's first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
            <translation>Après la première réponse d’une nouvelle discussion, son modèle écrit un titre court (une petite requête). Désactivé : la première ligne de votre premier message reste le titre. Un titre que vous avez choisi n’est jamais remplacé.</translation>
        </message>
        <message>
            <source>When a chat is too long</source>
            <translation>Quand une discussion est trop longue</translation>
        </message>
        <message>
            <source>Keep deleted chats in the trash</source>
            <translation>Garder les discussions supprimées dans la corbeille</translation>
        </message>
        <message>
            <source>Titles</source>
            <translation>Titres</translation>
        </message>
        <message>
            <source>Titles written by</source>
            <translation>Titres écrits par</translation>
        </message>
        <message>
            <source>Proxy URL</source>
            <translation>URL du proxy</translation>
        </message>
        <message>
            <source>Empty: the system's settings. http://host:8080, socks5://host:1080</source>
            <translation>Vide : les réglages du système. http://host:8080, socks5://host:1080</translation>
        </message>
        <message>
            <source>No proxy for</source>
            <translation>Pas de proxy pour</translation>
        </message>
        <message>
            <source>localhost,127.0.0.1,.internal.example</source>
            <translation>localhost,127.0.0.1,.internal.example</translation>
        </message>
        <message>
            <source>Request timeout</source>
            <translation>Délai d’expiration des requêtes</translation>
        </message>
        <message>
            <source> s</source>
            <translation> s</translation>
        </message>
        <message>
            <source>Proxy</source>
            <translation>Proxy</translation>
        </message>
        <message>
            <source>Answers at once per provider</source>
            <translation>Réponses simultanées par fournisseur</translation>
        </message>
        <message>
            <source>More chats than this asking one provider at once wait their turn</source>
            <translation>Au-delà, les discussions qui interrogent le même fournisseur attendent leur tour</translation>
        </message>
        <message>
            <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
            <translation>Le proxy sert à toutes les requêtes de l’application : fournisseurs, listes de modèles, fetch_url et serveurs MCP par HTTP. Utilisateur et mot de passe peuvent figurer dans l’URL (http://utilisateur:motdepasse@hôte:port).</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>Ouvrir le dossier</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>Dossier de données</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir).</source>
            <translation>Mode portable (--data-dir).</translation>
        </message>
        <message>
            <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
            <translation>Démarrez avec --data-dir DOSSIER pour garder les données ailleurs.</translation>
        </message>
        <message>
            <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
            <translation>Les discussions et réglages y sont dans {database} ; les journaux dans {logs}/. {note} Les clés d’API sont dans le trousseau du système s’il y en a un.</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Aucun assistant</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Message box</source>
            <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
            <translation>Zone de message</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>New line</source>
            <translation>Nouvelle ligne</translation>
        </message>
        <message>
            <source>Stop the answer</source>
            <translation>Arrêter la réponse</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Liste des discussions</translation>
        </message>
        <message>
            <source>Rename the chat</source>
            <translation>Renommer la discussion</translation>
        </message>
        <message>
            <source>Move the chat to the trash</source>
            <translation>Mettre la discussion à la corbeille</translation>
        </message>
        <message>
            <source>Open the chat</source>
            <translation>Ouvrir la discussion</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Raccourcis clavier</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>Où</translation>
        </message>
        <message>
            <source>What</source>
            <translation>Quoi</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>Touches</translation>
        </message>
    </context>
    <context>
        <name>SkillSwitches</name>
        <message>
            <source>Skills</source>
            <translation>Compétences</translation>
        </message>
        <message>
            <source>No skills (add some in Preferences → Skills)</source>
            <translation>Aucune compétence (ajoutez-en dans Préférences → Compétences)</translation>
        </message>
    </context>
    <context>
        <name>SkillsPage</name>
        <message>
            <source>{path} does not exist.</source>
            <extracomment>The page's wording of the errors adding or removing a skill can carry.</extracomment>
            <translation>{path} n'existe pas.</translation>
        </message>
        <message>
            <source>There is no SKILL.md in it.</source>
            <translation>Il ne contient pas de SKILL.md.</translation>
        </message>
        <message>
            <source>The skill is not valid: {reason}</source>
            <translation>La compétence n'est pas valide : {reason}</translation>
        </message>
        <message>
            <source>The zip is refused: {reason}</source>
            <translation>Le zip est refusé : {reason}</translation>
        </message>
        <message>
            <source>The skill is larger than 50 MB.</source>
            <translation>La compétence dépasse 50 Mo.</translation>
        </message>
        <message>
            <source>A skill named {name} is already added.</source>
            <translation>Une compétence nommée {name} est déjà ajoutée.</translation>
        </message>
        <message>
            <source>There is no added skill named {name}.</source>
            <translation>Aucune compétence ajoutée ne s'appelle {name}.</translation>
        </message>
        <message>
            <source>Skills are folders of instructions, scripts and resources the model loads when a task needs them. The model sees each skill's name and description; it reads the rest with the Load skill tool, and runs scripts with Run command (which asks first). A chat or assistant can turn skills off for itself.</source>
            <translation>Les compétences sont des dossiers d'instructions, de scripts et de ressources que le modèle charge quand une tâche en a besoin. Le modèle voit le nom et la description de chaque compétence ; il lit le reste avec l'outil Charger la compétence et exécute les scripts avec Exécuter une commande (qui demande d'abord). Une conversation ou un assistant peut désactiver des compétences pour lui-même.</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Compétences</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>Compétence</translation>
        </message>
        <message>
            <source>From</source>
            <translation>Origine</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Description</translation>
        </message>
        <message>
            <source>No skills yet. Add a folder that holds a SKILL.md, or a zip of one.</source>
            <translation>Aucune compétence pour l'instant. Ajoutez un dossier contenant un SKILL.md, ou un zip de celui-ci.</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ajouter un dossier…</translation>
        </message>
        <message>
            <source>Add zip…</source>
            <translation>Ajouter un zip…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>Open skills folder</source>
            <translation>Ouvrir le dossier des compétences</translation>
        </message>
        <message>
            <source>On: offered to every chat</source>
            <translation>Activée : proposée à chaque conversation</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>Espace de travail</translation>
        </message>
        <message>
            <source>App</source>
            <translation>Application</translation>
        </message>
        <message>
            <source>Cannot be used: {problem}</source>
            <translation>Inutilisable : {problem}</translation>
        </message>
        <message>
            <source>Add a skill folder</source>
            <translation>Ajouter un dossier de compétence</translation>
        </message>
        <message>
            <source>Add a skill from a zip</source>
            <translation>Ajouter une compétence depuis un zip</translation>
        </message>
        <message>
            <source>Zip archives (*.zip)</source>
            <translation>Archives zip (*.zip)</translation>
        </message>
        <message>
            <source>The skill could not be copied: {reason}</source>
            <translation>La compétence n'a pas pu être copiée : {reason}</translation>
        </message>
        <message>
            <source>Remove skill</source>
            <translation>Supprimer la compétence</translation>
        </message>
        <message>
            <source>Remove the skill {name}? Its folder is deleted.</source>
            <translation>Supprimer la compétence {name} ? Son dossier sera effacé.</translation>
        </message>
        <message>
            <source>The skill could not be removed: {reason}</source>
            <translation>La compétence n'a pas pu être supprimée : {reason}</translation>
        </message>
    </context>
    <context>
        <name>SlashPrompts</name>
        <message>
            <source>Prompts from MCP servers</source>
            <translation>Prompts des serveurs MCP</translation>
        </message>
        <message>
            <source>From MCP server {0}</source>
            <translation>Du serveur MCP {0}</translation>
        </message>
        <message>
            <source>The prompt /{0} failed: {1}</source>
            <translation>Le prompt /{0} a échoué : {1}</translation>
        </message>
    </context>
    <context>
        <name>SourcesView</name>
        <message>
            <source>page %1, line %2</source>
            <translation>page %1, ligne %2</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>page %1</translation>
        </message>
        <message>
            <source>line %1</source>
            <translation>ligne %1</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Sources</translation>
        </message>
        <message>
            <source>Source %1: %2</source>
            <translation>Source %1 : %2</translation>
        </message>
    </context>
    <context>
        <name>Spinner</name>
        <message>
            <source>Running</source>
            <translation>En cours</translation>
        </message>
    </context>
    <context>
        <name>StarterCard</name>
        <message>
            <source>Add</source>
            <extracomment>Cards per row at the dialog's usual width (one column when it is narrow).</extracomment>
            <translation>Ajouter</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>Ajouter {name}</translation>
        </message>
        <message>
            <source>Added</source>
            <translation>Ajouté</translation>
        </message>
        <message>
            <source>Added as “{name}”; edit it in Assistants</source>
            <translation>Ajouté sous le nom « {name} » ; modifiez-le dans Assistants</translation>
        </message>
    </context>
    <context>
        <name>StartupSkeleton</name>
        <message>
            <source>Message</source>
            <extracomment>Enter was pressed: send it once the app can the box had the keyboard focus called at Enter once a question can be sent before the window is built</extracomment>
            <translation>Message</translation>
        </message>
        <message>
            <source>Type a message… (it is sent once the app has loaded)</source>
            <translation>Tapez un message… (il sera envoyé une fois l’application chargée)</translation>
        </message>
        <message>
            <source>Chats</source>
            <extracomment>clicked before the app had loaded listed by :meth:`fill` pressed in the window before :meth:`fill`</extracomment>
            <translation>Discussions</translation>
        </message>
        <message>
            <source>+  New chat</source>
            <translation>+  Nouvelle discussion</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Activité des outils</translation>
        </message>
        <message>
            <source>Opening…</source>
            <translation>Ouverture…</translation>
        </message>
        <message>
            <source>Opening your chats…</source>
            <translation>Ouverture de vos discussions…</translation>
        </message>
    </context>
    <context>
        <name>SyncDialog</name>
        <message>
            <source>saved in the keyring — type to replace</source>
            <translation>enregistrée dans le trousseau — tapez pour la remplacer</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>Mot de passe</translation>
        </message>
        <message>
            <source>Secret access key</source>
            <translation>Clé d’accès secrète</translation>
        </message>
        <message>
            <source>User name</source>
            <translation>Nom d’utilisateur</translation>
        </message>
        <message>
            <source>Access key ID</source>
            <translation>ID de clé d’accès</translation>
        </message>
        <message>
            <source>Enter the password.</source>
            <translation>Saisissez le mot de passe.</translation>
        </message>
        <message>
            <source>Enter the user name.</source>
            <translation>Saisissez le nom d’utilisateur.</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>Synchronisation</translation>
        </message>
        <message>
            <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
            <translation>Synchronisez vos discussions, assistants et réglages avec vos autres ordinateurs via un stockage qui vous appartient. Tout est chiffré ici avec votre phrase secrète avant de partir ; les clés d’API ne partent jamais.</translation>
        </message>
        <message>
            <source>Sync target</source>
            <translation>Cible de synchronisation</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>Dossier…</translation>
        </message>
        <message>
            <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
            <translation>Choisir un dossier répliqué par un autre outil (Syncthing, Dropbox, iCloud Drive, OneDrive)</translation>
        </message>
        <message>
            <source>AWS when empty; e.g. https://minio.example:9000</source>
            <translation>Vide : AWS ; p. ex. https://minio.example:9000</translation>
        </message>
        <message>
            <source>us-east-1</source>
            <translation>us-east-1</translation>
        </message>
        <message>
            <source>the same passphrase again</source>
            <translation>la même phrase secrète à nouveau</translation>
        </message>
        <message>
            <source>the same on every computer; it cannot be recovered</source>
            <translation>la même sur chaque ordinateur ; elle ne peut pas être récupérée</translation>
        </message>
        <message>
            <source>Sync automatically (after changes and every 5 minutes)</source>
            <translation>Synchroniser automatiquement (après les modifications et toutes les 5 minutes)</translation>
        </message>
        <message>
            <source>Target</source>
            <translation>Cible</translation>
        </message>
        <message>
            <source>S3 endpoint</source>
            <translation>Point de terminaison S3</translation>
        </message>
        <message>
            <source>S3 region</source>
            <translation>Région S3</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>Phrase secrète</translation>
        </message>
        <message>
            <source>Repeat</source>
            <translation>Répéter</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Tester la connexion</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>Synchroniser maintenant</translation>
        </message>
        <message>
            <source>{user} (from the URL)</source>
            <translation>{user} (depuis l’URL)</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>Choisir le dossier de synchronisation</translation>
        </message>
        <message>
            <source>Enter where to sync: {forms}.</source>
            <translation>Indiquez où synchroniser : {forms}.</translation>
        </message>
        <message>
            <source>Unknown target: use {forms}.</source>
            <translation>Cible inconnue : utilisez {forms}.</translation>
        </message>
        <message>
            <source>Enter the S3 access key ID.</source>
            <translation>Saisissez l’ID de clé d’accès S3.</translation>
        </message>
        <message>
            <source>Enter the S3 secret access key.</source>
            <translation>Saisissez la clé d’accès secrète S3.</translation>
        </message>
        <message>
            <source>Choose a passphrase (the same on every computer).</source>
            <translation>Choisissez une phrase secrète (la même sur chaque ordinateur).</translation>
        </message>
        <message>
            <source>The two passphrases differ.</source>
            <translation>Les deux phrases secrètes diffèrent.</translation>
        </message>
        <message>
            <source>Testing the connection…</source>
            <translation>Test de la connexion…</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Synchronisation…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>Échec de la synchronisation : {error}</translation>
        </message>
        <message>
            <source>Status: {status}</source>
            <translation>État : {status}</translation>
        </message>
    </context>
    <context>
        <name>SyncScheduler</name>
        <message>
            <source>just now</source>
            <translation>à l’instant</translation>
        </message>
        <message>
            <source>{minutes} min ago</source>
            <translation>il y a {minutes} min</translation>
        </message>
        <message>
            <source>{hours} h ago</source>
            <translation>il y a {hours} h</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Synchronisation…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>Échec de la synchronisation : {error}</translation>
        </message>
        <message>
            <source>Not synced yet</source>
            <translation>Pas encore synchronisé</translation>
        </message>
        <message>
            <source>Synced {when}</source>
            <translation>Synchronisé {when}</translation>
        </message>
    </context>
    <context>
        <name>SyncStatusLabel</name>
        <message>
            <source>Sync: click for Settings → Sync</source>
            <translation>Synchronisation : cliquez pour Réglages → Synchronisation</translation>
        </message>
    </context>
    <context>
        <name>SyncTexts</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>il y a %n jour</numerusform>
                <numerusform>il y a %n jours</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes waiting</source>
            <translation>
                <numerusform>%n modification en attente</numerusform>
                <numerusform>%n modifications en attente</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TemporaryBanner</name>
        <message>
            <source>Temporary chat: it uses no memory and is not kept once you leave it.</source>
            <translation>Discussion temporaire : elle n'utilise aucune mémoire et n'est pas conservée une fois quittée.</translation>
        </message>
    </context>
    <context>
        <name>TitleModelCombo</name>
        <message>
            <source>Model that writes titles</source>
            <translation>Modèle qui écrit les titres</translation>
        </message>
        <message>
            <source>The chat's own model, or one model for every title (a small, quick one is enough)</source>
            <translation>Le modèle de la conversation, ou un seul modèle pour tous les titres (un petit modèle rapide suffit)</translation>
        </message>
        <message>
            <source>The chat's model</source>
            <translation>Le modèle de la conversation</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} sur {provider}</translation>
        </message>
    </context>
    <context>
        <name>ToolActivity</name>
        <message>
            <source>{model} cannot use tools: none are sent to it</source>
            <translation>{model} ne sait pas utiliser d’outils : aucun ne lui est envoyé</translation>
        </message>
    </context>
    <context>
        <name>ToolCallCard</name>
        <message>
            <source>… starting</source>
            <translation>… démarrage</translation>
        </message>
        <message>
            <source>waiting for approval</source>
            <translation>en attente d’approbation</translation>
        </message>
        <message>
            <source>running</source>
            <translation>en cours</translation>
        </message>
        <message>
            <source>✓ succeeded</source>
            <translation>✓ réussi</translation>
        </message>
        <message>
            <source>✗ failed</source>
            <translation>✗ échec</translation>
        </message>
        <message>
            <source>⊘ denied</source>
            <translation>⊘ refusé</translation>
        </message>
        <message>
            <source>■ cancelled</source>
            <translation>■ annulé</translation>
        </message>
        <message>
            <source>Show details of {tool}</source>
            <translation>Afficher les détails de {tool}</translation>
        </message>
        <message>
            <source>pending</source>
            <translation>en attente</translation>
        </message>
        <message>
            <source>Output of {tool}</source>
            <translation>Sortie de {tool}</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Stop this call; the assistant is told it was cancelled</source>
            <translation>Arrêter cet appel ; l’assistant est informé de son annulation</translation>
        </message>
        <message>
            <source>Cancel {tool}</source>
            <translation>Annuler {tool}</translation>
        </message>
        <message>
            <source>Details of {tool}</source>
            <translation>Détails de {tool}</translation>
        </message>
        <message>
            <source>waiting {time} · review it above</source>
            <translation>en attente depuis {time} · à examiner ci-dessus</translation>
        </message>
        <message>
            <source>… [more output in the result]</source>
            <translation>… [suite de la sortie dans le résultat]</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Arguments</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Aperçu</translation>
        </message>
        <message>
            <source>Result · {status}</source>
            <translation>Résultat · {status}</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Afficher moins</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Tout afficher</translation>
        </message>
        <message>
            <source>Image returned by {tool}</source>
            <translation>Image renvoyée par {tool}</translation>
        </message>
        <message>
            <source>[image: {type}] (cannot be shown)</source>
            <translation>[image : {type}] (impossible à afficher)</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>Annulation…</translation>
        </message>
    </context>
    <context>
        <name>ToolCallText</name>
        <message>
            <source>{seconds} s</source>
            <translation>{seconds} s</translation>
        </message>
        <message>
            <source>{minutes} min {seconds} s</source>
            <translation>{minutes} min {seconds} s</translation>
        </message>
        <message>
            <source>exit {code}</source>
            <translation>code de sortie {code}</translation>
        </message>
        <message>
            <source>Diff</source>
            <translation>Diff</translation>
        </message>
    </context>
    <context>
        <name>ToolCallsInline</name>
        <message>
            <source>waiting for your approval</source>
            <translation>en attente de votre approbation</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>en cours…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>échec</translation>
        </message>
        <message>
            <source>some failed</source>
            <translation>certains ont échoué</translation>
        </message>
        <message>
            <source>done</source>
            <translation>terminé</translation>
        </message>
        <message>
            <source>running</source>
            <translation>en cours</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Afficher moins</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Tout afficher</translation>
        </message>
        <message>
            <source>Show the tool calls of this answer</source>
            <translation>Afficher les appels d’outils de cette réponse</translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n appel d’outil</numerusform>
                <numerusform>%n appels d’outils</numerusform>
            </translation>
        </message>
        <message>
            <source>Tool call details</source>
            <translation>Détails des appels d’outils</translation>
        </message>
        <message>
            <source>{count} more characters</source>
            <translation>{count} caractères de plus</translation>
        </message>
    </context>
    <context>
        <name>ToolNames</name>
        <message>
            <source>Read file</source>
            <translation>Lire un fichier</translation>
        </message>
        <message>
            <source>List folder</source>
            <translation>Lister un dossier</translation>
        </message>
        <message>
            <source>Search files</source>
            <translation>Rechercher dans les fichiers</translation>
        </message>
        <message>
            <source>Write file</source>
            <translation>Écrire un fichier</translation>
        </message>
        <message>
            <source>Create file</source>
            <translation>Créer un fichier</translation>
        </message>
        <message>
            <source>Edit file</source>
            <translation>Modifier un fichier</translation>
        </message>
        <message>
            <source>Run command</source>
            <translation>Exécuter une commande</translation>
        </message>
        <message>
            <source>Fetch web page</source>
            <translation>Récupérer une page web</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Rechercher sur le web</translation>
        </message>
        <message>
            <source>Search knowledge</source>
            <translation>Rechercher dans les connaissances</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>Retenir</translation>
        </message>
        <message>
            <source>Load skill</source>
            <translation>Charger la compétence</translation>
        </message>
    </context>
    <context>
        <name>ToolSidebar</name>
        <message>
            <source>All calls</source>
            <translation>Tous les appels</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>En attente</translation>
        </message>
        <message>
            <source>No waiting calls.</source>
            <translation>Aucun appel en attente.</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>En cours</translation>
        </message>
        <message>
            <source>No running calls.</source>
            <translation>Aucun appel en cours.</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>Réussis</translation>
        </message>
        <message>
            <source>No succeeded calls.</source>
            <translation>Aucun appel réussi.</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Échoués</translation>
        </message>
        <message>
            <source>No failed calls.</source>
            <translation>Aucun appel échoué.</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Refusé</translation>
        </message>
        <message>
            <source>No denied calls.</source>
            <translation>Aucun appel refusé.</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Annulés</translation>
        </message>
        <message>
            <source>No cancelled calls.</source>
            <translation>Aucun appel annulé.</translation>
        </message>
        <message>
            <source>{arrow} Turn {number} · {calls}</source>
            <translation>{arrow} Échange {number} · {calls}</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Activité des outils</translation>
        </message>
        <message>
            <source>Show calls</source>
            <translation>Afficher les appels</translation>
        </message>
        <message>
            <source>Show only calls with this status</source>
            <translation>N’afficher que les appels ayant cet état</translation>
        </message>
        <message>
            <source>Tool calls the assistant makes appear here.</source>
            <translation>Les appels d’outils de l’assistant apparaissent ici.</translation>
        </message>
        <message>
            <source>Turn {number}</source>
            <translation>Échange {number}</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>annulé</translation>
        </message>
        <message numerus="yes">
            <source>%n calls</source>
            <translation>
                <numerusform>%n appel</numerusform>
                <numerusform>%n appels</numerusform>
            </translation>
        </message>
        <message>
            <source>awaiting_approval</source>
            <translation>en attente d’approbation</translation>
        </message>
    </context>
    <context>
        <name>ToolsDialog</name>
        <message>
            <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
            <translation>&lt;b&gt;Autoriser&lt;/b&gt; exécute un outil tout de suite, &lt;b&gt;Demander&lt;/b&gt; vous montre chaque appel (avec son diff, sa commande ou son URL) avant l’exécution, &lt;b&gt;Refuser&lt;/b&gt; ne l’exécute jamais et l’outil n’est pas proposé. Les outils en lecture seule sont sur Autoriser par défaut ; écrire des fichiers, lancer des commandes et récupérer des pages Web sont sur Demander.</translation>
        </message>
        <message>
            <source>Allow</source>
            <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
            <translation>Autoriser</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Demander</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Refuser</translation>
        </message>
        <message>
            <source>built-in</source>
            <translation>intégré</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP : {server}</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Outils</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Outil</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Source</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Activé</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Règle</translation>
        </message>
        <message>
            <source>Tools and their policies</source>
            <translation>Outils et leurs règles</translation>
        </message>
        <message>
            <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
            <translation>&lt;b&gt;Toujours autorisés&lt;/b&gt; — ces outils s’exécutent sans demander, dans toutes les discussions, jusqu’à révocation.</translation>
        </message>
        <message>
            <source>Calls</source>
            <translation>Appels</translation>
        </message>
        <message>
            <source>Since</source>
            <translation>Depuis</translation>
        </message>
        <message>
            <source>Always allowed tools</source>
            <translation>Outils toujours autorisés</translation>
        </message>
        <message>
            <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
            <translation>Aucun outil n’est toujours autorisé. Choisissez « Toujours autoriser » lors d’une approbation pour en ajouter un.</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>Oublier</translation>
        </message>
        <message>
            <source>Ask again in this chat for these tools</source>
            <translation>Redemander dans cette discussion pour ces outils</translation>
        </message>
        <message>
            <source>Offered to the assistant (each chat can still switch it off in the composer's tools menu)</source>
            <translation>Proposé à l’assistant (chaque discussion peut le désactiver dans le menu des outils de la zone de saisie)</translation>
        </message>
        <message>
            <source>Switch MCP tools on or off in Settings → MCP servers</source>
            <translation>Activez ou désactivez les outils MCP dans Réglages → Serveurs MCP</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Règle pour {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Par défaut ({policy})</translation>
        </message>
        <message>
            <source>All calls</source>
            <translation>Tous les appels</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Révoquer</translation>
        </message>
        <message>
            <source>Revoke {tool} {calls}</source>
            <translation>Révoquer {tool} {calls}</translation>
        </message>
        <message>
            <source>Ask again before {tool} runs</source>
            <translation>Redemander avant d’exécuter {tool}</translation>
        </message>
        <message>
            <source>Allowed for this chat: </source>
            <translation>Autorisés pour cette discussion : </translation>
        </message>
        <message>
            <source>No tool is allowed just for this chat.</source>
            <translation>Aucun outil n’est autorisé pour cette seule discussion.</translation>
        </message>
        <message>
            <source>This chat's commands may use the network.</source>
            <translation>Les commandes de ce chat peuvent utiliser le réseau.</translation>
        </message>
        <message>
            <source>Revoked: {tool} will ask again before it runs.</source>
            <translation>Révoqué : {tool} redemandera avant de s’exécuter.</translation>
        </message>
        <message>
            <source>This chat will ask again.</source>
            <translation>Cette discussion redemandera.</translation>
        </message>
    </context>
    <context>
        <name>TopBar</name>
        <message>
            <source>Provider</source>
            <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app's name (it is in the window's title).</extracomment>
            <translation>Fournisseur</translation>
        </message>
        <message>
            <source>The provider of this chat</source>
            <translation>Le fournisseur de cette discussion</translation>
        </message>
        <message>
            <source>No provider</source>
            <translation>Aucun fournisseur</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Chat settings: model, temperature, max tokens, reasoning</source>
            <translation>Réglages de la discussion : modèle, température, jetons max., raisonnement</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>Réglages de la discussion</translation>
        </message>
        <message>
            <source>Providers…</source>
            <translation>Fournisseurs…</translation>
        </message>
        <message>
            <source>Add or edit providers</source>
            <translation>Ajouter ou modifier des fournisseurs</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>Fournisseurs</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Activité des outils</translation>
        </message>
        <message>
            <source>Show or hide the tool activity panel (Ctrl+B)</source>
            <translation>Afficher ou masquer le panneau d’activité des outils (Ctrl+B)</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} sur {provider}</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>Choisir un modèle</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Choisir un modèle…</translation>
        </message>
        <message>
            <source>Click to search and switch models</source>
            <translation>Cliquez pour rechercher et changer de modèle</translation>
        </message>
        <message>
            <source> (this chat sets its own)</source>
            <translation> (cette discussion a les siens)</translation>
        </message>
        <message>
            <source>no provider</source>
            <translation>aucun fournisseur</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>aucun modèle</translation>
        </message>
    </context>
    <context>
        <name>TrustFields</name>
        <message>
            <source>Run commands in a sandbox</source>
            <translation>Exécuter les commandes dans un bac à sable</translation>
        </message>
        <message>
            <source>Commands see the system read-only, may write only in the workspace and a private temporary folder, and never see this app's data (Linux: bubblewrap; macOS: sandbox-exec). Without a sandbox on this system they run as you.</source>
            <translation>Les commandes voient le système en lecture seule, n'écrivent que dans l'espace de travail et un dossier temporaire privé, et ne voient jamais les données de cette application (Linux : bubblewrap ; macOS : sandbox-exec). Sans bac à sable sur ce système, elles s'exécutent en votre nom.</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>Autoriser le réseau aux commandes en bac à sable</translation>
        </message>
        <message>
            <source>Off: a command cannot reach the internet or servers on this computer (downloads, package installs and git push fail).</source>
            <translation>Désactivé : une commande ne peut joindre ni Internet ni les serveurs de cet ordinateur (téléchargements, installations de paquets et git push échouent).</translation>
        </message>
        <message>
            <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
            <translation>p. ex. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</translation>
        </message>
        <message>
            <source>Local or private hosts fetch_url may read</source>
            <translation>Hôtes locaux ou privés que fetch_url peut lire</translation>
        </message>
        <message>
            <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
            <translation>fetch_url refuse cet ordinateur, le réseau local et les adresses de métadonnées cloud, pour qu’une page Web ne puisse pas faire lire ces adresses à l’assistant. Les hôtes, suffixes .domaine, adresses ou réseaux listés ici sont autorisés.</translation>
        </message>
        <message>
            <source>e.g. JAVA_HOME, NODE_*</source>
            <translation>p. ex. JAVA_HOME, NODE_*</translation>
        </message>
        <message>
            <source>Environment variables run_command passes on</source>
            <translation>Variables d’environnement transmises par run_command</translation>
        </message>
        <message>
            <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
            <translation>Les commandes reçoivent un environnement épuré (PATH, HOME, langue…). Nommez ici d’autres variables, ou des préfixes finissant par * ; un préfixe n’apporte jamais de clés, jetons ou mots de passe.</translation>
        </message>
        <message>
            <source>Hosts fetch_url may read:</source>
            <translation>Hôtes que fetch_url peut lire :</translation>
        </message>
        <message>
            <source>Variables for commands:</source>
            <translation>Variables pour les commandes :</translation>
        </message>
        <message>
            <source>Not a host, address or network: {entries}</source>
            <translation>Ni un hôte, ni une adresse, ni un réseau : {entries}</translation>
        </message>
        <message>
            <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
            <translation>Pas un nom de variable (lettres, chiffres et _, ou un préfixe finissant par *) : {entries}</translation>
        </message>
    </context>
    <context>
        <name>TurnStatus</name>
        <message>
            <source>Rate limited</source>
            <translation>Limite de débit atteinte</translation>
        </message>
        <message>
            <source>Overloaded</source>
            <translation>Surchargé</translation>
        </message>
        <message>
            <source>Service unavailable</source>
            <translation>Service indisponible</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>Délai dépassé</translation>
        </message>
        <message>
            <source>Server error ({reason})</source>
            <translation>Erreur du serveur ({reason})</translation>
        </message>
        <message>
            <source>Could not connect ({reason})</source>
            <translation>Connexion impossible ({reason})</translation>
        </message>
        <message>
            <source>retry {number}</source>
            <translation>tentative {number}</translation>
        </message>
        <message>
            <source>retrying in {seconds} s</source>
            <translation>nouvel essai dans {seconds} s</translation>
        </message>
        <message>
            <source>retrying now</source>
            <translation>nouvel essai maintenant</translation>
        </message>
        <message>
            <source>{reason} — {wait} ({count})</source>
            <translation>{reason} — {wait} ({count})</translation>
        </message>
        <message>
            <source>Answer status</source>
            <translation>État de la réponse</translation>
        </message>
        <message>
            <source>Thinking…  </source>
            <translation>Réflexion…  </translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Stop this answer</source>
            <translation>Arrêter cette réponse</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>Autoriser une fois</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Exécuter cet appel maintenant ; redemander la prochaine fois</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>Autoriser pour cette discussion</translation>
        </message>
        <message>
            <source>Do not ask again in this chat</source>
            <translation>Ne plus demander dans cette discussion</translation>
        </message>
        <message>
            <source>Always allow</source>
            <translation>Toujours autoriser</translation>
        </message>
        <message>
            <source>Never ask again, in any chat</source>
            <translation>Ne plus jamais demander, dans aucune discussion</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Refuser</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told</source>
            <translation>Ne pas l’exécuter ; l’assistant en est informé</translation>
        </message>
        <message>
            <source>Allow network for this chat</source>
            <translation>Autoriser le réseau pour ce chat</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on</source>
            <translation>Les commandes de ce chat peuvent désormais utiliser le réseau</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>Continuer</translation>
        </message>
        <message>
            <source>Let the assistant use tools for more rounds</source>
            <translation>Laisser l’assistant utiliser des outils pendant d’autres tours</translation>
        </message>
        <message>
            <source>Stop here</source>
            <translation>S’arrêter ici</translation>
        </message>
        <message>
            <source>End the answer with what it has so far</source>
            <translation>Terminer la réponse avec ce qu’elle contient déjà</translation>
        </message>
        <message>
            <source>Waiting for your approval: {tool}</source>
            <translation>En attente de votre approbation : {tool}</translation>
        </message>
        <message>
            <source>Waiting for your approval ({number} of {count}): {tool}</source>
            <translation>En attente de votre approbation ({number} sur {count}) : {tool}</translation>
        </message>
        <message numerus="yes">
            <source>The assistant has used tools for %n round(s). Let it continue?</source>
            <translation>
                <numerusform>L’assistant a utilisé des outils pendant %n tour. Le laisser continuer ?</numerusform>
                <numerusform>L’assistant a utilisé des outils pendant %n tours. Le laisser continuer ?</numerusform>
            </translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>En attente de la fin d’une autre réponse de ce fournisseur…</translation>
        </message>
        <message>
            <source>Also waiting ({number} of {count}): {tool}</source>
            <translation>Également en attente ({number} sur {count}) : {tool}</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Réflexion</translation>
        </message>
    </context>
    <context>
        <name>UndoBar</name>
        <message>
            <source>Undo</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Bring the chat back from the trash</source>
            <translation>Ramener la discussion de la corbeille</translation>
        </message>
        <message>
            <source>Moved “{title}” to the trash</source>
            <translation>« {title} » mise à la corbeille</translation>
        </message>
        <message numerus="yes">
            <source>Moved %n chats to the trash</source>
            <translation>
                <numerusform>%n discussion mise à la corbeille</numerusform>
                <numerusform>%n discussions mises à la corbeille</numerusform>
            </translation>
        </message>
        <message>
            <source>Undo this turn's changes</source>
            <translation>Annuler les modifications de cet échange</translation>
        </message>
        <message>
            <source>Put back the files the assistant wrote in its last turn in this chat</source>
            <translation>Rétablir les fichiers que l’assistant a écrits lors de son dernier échange dans cette discussion</translation>
        </message>
        <message numerus="yes">
            <source>…and %n more</source>
            <translation>
                <numerusform>…et %n de plus</numerusform>
                <numerusform>…et %n de plus</numerusform>
            </translation>
        </message>
        <message>
            <source>Put back these files as they were before the assistant's last turn? Files it created are deleted.

{files}</source>
            <translation>Remettre ces fichiers dans leur état d’avant le dernier échange de l’assistant ? Les fichiers qu’il a créés sont supprimés.

{files}</translation>
        </message>
        <message>
            <source>Nothing was undone: files {reason}</source>
            <translation>Rien n’a été annulé : fichiers {reason}</translation>
        </message>
        <message>
            <source>Nothing was undone: {reason}</source>
            <translation>Rien n’a été annulé : {reason}</translation>
        </message>
        <message numerus="yes">
            <source>Undone: %n file(s) put back</source>
            <translation>
                <numerusform>Annulé : %n fichier rétabli</numerusform>
                <numerusform>Annulé : %n fichiers rétablis</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n deleted</source>
            <translation>
                <numerusform>%n supprimé</numerusform>
                <numerusform>%n supprimés</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UpdateDialog</name>
        <message>
            <source>Update available</source>
            <translation>Mise à jour disponible</translation>
        </message>
        <message>
            <source>Version {new} is available (you have {current}).</source>
            <translation>La version {new} est disponible (vous avez la {current}).</translation>
        </message>
        <message>
            <source>No release notes.</source>
            <translation>Pas de notes de version.</translation>
        </message>
        <message>
            <source>Release notes</source>
            <translation>Notes de version</translation>
        </message>
        <message>
            <source>Download: {file}</source>
            <translation>Téléchargement : {file}</translation>
        </message>
        <message>
            <source>No installer for this system in this release: the release page lists what there is.</source>
            <translation>Pas d’installeur pour ce système dans cette version : la page de la version liste ce qui existe.</translation>
        </message>
        <message>
            <source>&amp;Download</source>
            <translation>&amp;Télécharger</translation>
        </message>
        <message>
            <source>Release &amp;page</source>
            <translation>&amp;Page de la version</translation>
        </message>
    </context>
    <context>
        <name>UpdateNotice</name>
        <message>
            <source>Version {version} is available</source>
            <translation>La version {version} est disponible</translation>
        </message>
        <message>
            <source>See what is new and download it</source>
            <translation>Voir les nouveautés et la télécharger</translation>
        </message>
    </context>
    <context>
        <name>UsagePage</name>
        <message>
            <source>Period</source>
            <extracomment>One plain thread for the page's reads (not the event loop's default executor: under qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).</extracomment>
            <translation>Période</translation>
        </message>
        <message>
            <source>Last 7 days</source>
            <translation>7 derniers jours</translation>
        </message>
        <message>
            <source>Last 30 days</source>
            <translation>30 derniers jours</translation>
        </message>
        <message>
            <source>All time</source>
            <translation>Depuis le début</translation>
        </message>
        <message>
            <source>Usage per model</source>
            <translation>Utilisation par modèle</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Answers</source>
            <translation>Réponses</translation>
        </message>
        <message>
            <source>Tokens in</source>
            <translation>Jetons en entrée</translation>
        </message>
        <message>
            <source>Tokens out</source>
            <translation>Jetons en sortie</translation>
        </message>
        <message>
            <source>Cost</source>
            <translation>Coût</translation>
        </message>
        <message>
            <source>Median tok/s</source>
            <translation>Médiane jetons/s</translation>
        </message>
        <message>
            <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
            <translation>Chaque réponse enregistrée compte, dans toutes les discussions et versions (corbeille comprise). Les coûts sont ceux indiqués par le fournisseur, sinon estimés d’après les prix des modèles (Réglages → Prix des modèles) ; « — » : prix inconnu, « ≥ » : certains jetons n’en ont pas. Les vitesses sont en jetons par seconde pendant l’arrivée de la réponse.</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Lecture…</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>Total</translation>
        </message>
    </context>
    <context>
        <name>UsageText</name>
        <message>
            <source>{input} in · {output} out</source>
            <extracomment>Where a view gets the user's model prices from (they change in Settings).</extracomment>
            <translation>{input} entrée · {output} sortie</translation>
        </message>
        <message>
            <source> ({count} reasoning)</source>
            <translation> ({count} de raisonnement)</translation>
        </message>
        <message>
            <source> · {seconds} s</source>
            <translation> · {seconds} s</translation>
        </message>
        <message>
            <source> · {rate} tok/s</source>
            <translation> · {rate} jetons/s</translation>
        </message>
        <message>
            <source>Tokens for this answer: prompt in, generated out</source>
            <translation>Jetons de cette réponse : prompt en entrée, texte généré en sortie</translation>
        </message>
        <message>
            <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
            <translation>≈ : estimé d’après le texte (le fournisseur n’a pas envoyé de décompte : la réponse a été arrêtée ou a échoué)</translation>
        </message>
        <message>
            <source>First token after {seconds} s</source>
            <translation>Premier jeton après {seconds} s</translation>
        </message>
        <message>
            <source>{rate} tokens per second</source>
            <translation>{rate} jetons par seconde</translation>
        </message>
        <message>
            <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
            <translation>Coût environ {cost} (indiqué par le fournisseur, sinon d’après les prix des modèles)</translation>
        </message>
        <message>
            <source>No price known for this model (Settings → Model prices)</source>
            <translation>Aucun prix connu pour ce modèle (Réglages → Prix des modèles)</translation>
        </message>
        <message>
            <source>tokens {input} in · {output} out</source>
            <translation>jetons {input} entrée · {output} sortie</translation>
        </message>
        <message>
            <source> ({count} thinking)</source>
            <translation> ({count} de réflexion)</translation>
        </message>
        <message>
            <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
            <translation>Cette discussion : {input} jetons en entrée ({cached} en cache), {output} jetons en sortie ({thinking} de réflexion)</translation>
        </message>
        <message>
            <source>, about {cost}</source>
            <translation>, environ {cost}</translation>
        </message>
        <message>
            <source>, no price known for this model</source>
            <translation>, aucun prix connu pour ce modèle</translation>
        </message>
    </context>
    <context>
        <name>VirtualColumn</name>
        <message>
            <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
            <translation>Posez n’importe quelle question. Entrée pour envoyer, Maj+Entrée pour un saut de ligne.</translation>
        </message>
        <message>
            <source>↓  Jump to latest</source>
            <translation>↓  Aller au plus récent</translation>
        </message>
    </context>
    <context>
        <name>Voice</name>
        <message>
            <source>No microphone could be opened. Connect one, or allow this app to use the microphone in the system's privacy settings.</source>
            <translation>Aucun micro n'a pu être ouvert. Branchez-en un, ou autorisez cette application à utiliser le micro dans les réglages de confidentialité du système.</translation>
        </message>
        <message>
            <source>No sound output could be opened, so nothing can be read aloud here.</source>
            <translation>Aucune sortie son n'a pu être ouverte : rien ne peut être lu à voix haute ici.</translation>
        </message>
        <message>
            <source>This system has no speech engine. Install espeak-ng, or set a speech model in Settings.</source>
            <translation>Ce système n'a pas de moteur vocal. Installez espeak-ng, ou choisissez un modèle vocal dans les Réglages.</translation>
        </message>
        <message>
            <source>Set a transcription model in Settings to dictate.</source>
            <translation>Choisissez un modèle de transcription dans les Réglages pour dicter.</translation>
        </message>
        <message>
            <source>This answer has no text to read aloud.</source>
            <translation>Cette réponse n'a pas de texte à lire.</translation>
        </message>
        <message>
            <source>The speech audio could not be played.</source>
            <translation>L'audio de la voix n'a pas pu être lu.</translation>
        </message>
        <message>
            <source>Nothing was recorded.</source>
            <translation>Rien n'a été enregistré.</translation>
        </message>
    </context>
    <context>
        <name>VoiceSettings</name>
        <message>
            <source>Provider that reads aloud</source>
            <translation>Fournisseur qui lit à voix haute</translation>
        </message>
        <message>
            <source>Speech model</source>
            <translation>Modèle vocal</translation>
        </message>
        <message>
            <source>Empty: the system's voice. e.g. gpt-4o-mini-tts</source>
            <translation>Vide : la voix du système. p. ex. gpt-4o-mini-tts</translation>
        </message>
        <message>
            <source>Voice</source>
            <translation>Voix</translation>
        </message>
        <message>
            <source>Provider that writes dictation</source>
            <translation>Fournisseur qui transcrit la dictée</translation>
        </message>
        <message>
            <source>Transcription model</source>
            <translation>Modèle de transcription</translation>
        </message>
        <message>
            <source>Empty: no dictation. e.g. whisper-1</source>
            <translation>Vide : pas de dictée. p. ex. whisper-1</translation>
        </message>
        <message>
            <source>Read aloud on</source>
            <translation>Lecture à voix haute avec</translation>
        </message>
        <message>
            <source>Dictation on</source>
            <translation>Dictée avec</translation>
        </message>
        <message>
            <source>The chat's provider</source>
            <translation>Le fournisseur de la discussion</translation>
        </message>
    </context>
    <context>
        <name>WebSearchSettings</name>
        <message>
            <source>Search service</source>
            <translation>Service de recherche</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Aucune</translation>
        </message>
        <message>
            <source>SearXNG</source>
            <translation>SearXNG</translation>
        </message>
        <message>
            <source>Brave Search</source>
            <translation>Brave Search</translation>
        </message>
        <message>
            <source>Tavily</source>
            <translation>Tavily</translation>
        </message>
        <message>
            <source>Search service address</source>
            <translation>Adresse du service de recherche</translation>
        </message>
        <message>
            <source>Search service API key</source>
            <translation>Clé d’API du service de recherche</translation>
        </message>
        <message>
            <source>Chats with "Search the web" on use the provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
            <translation>Les discussions avec « Rechercher sur le Web » activé utilisent la recherche du fournisseur s’il en a une (OpenAI Responses, Anthropic, Gemini, OpenRouter). Les autres fournisseurs reçoivent un outil web_search utilisant le service choisi ici. SearXNG doit autoriser le format json (search: formats: [html, json] dans son settings.yml).</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>Service</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>Clé d’API</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Recherche</translation>
        </message>
        <message>
            <source>Research: search rounds at most</source>
            <translation>Recherche : tours de recherche au maximum</translation>
        </message>
        <message>
            <source> min</source>
            <translation> min</translation>
        </message>
        <message>
            <source>Research: minutes at most</source>
            <translation>Recherche : minutes au maximum</translation>
        </message>
        <message>
            <source>No ceiling</source>
            <translation>Aucun plafond</translation>
        </message>
        <message>
            <source>Research: cost ceiling in US dollars</source>
            <translation>Recherche : plafond de coût en dollars US</translation>
        </message>
        <message>
            <source>Search rounds</source>
            <translation>Tours de recherche</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>Limite de temps</translation>
        </message>
        <message>
            <source>Cost ceiling</source>
            <translation>Plafond de coût</translation>
        </message>
        <message>
            <source>A research run stops at whichever limit comes first and says so in its report. The cost counts only models with a known price (Model prices).</source>
            <translation>Une recherche s’arrête à la première limite atteinte et l’indique dans son rapport. Le coût ne compte que les modèles au prix connu (Prix des modèles).</translation>
        </message>
        <message>
            <source>https://searx.example.org</source>
            <translation>https://searx.example.org</translation>
        </message>
        <message>
            <source>Default: the service's API</source>
            <translation>Par défaut : l’API du service</translation>
        </message>
        <message>
            <source>SearXNG needs the address of an instance.</source>
            <translation>SearXNG a besoin de l’adresse d’une instance.</translation>
        </message>
    </context>
    <context>
        <name>WelcomePage</name>
        <message>
            <source>Connect a model provider</source>
            <translation>Connecter un fournisseur de modèles</translation>
        </message>
        <message>
            <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
            <translation>Assista dialogue avec des services compatibles OpenAI : un fournisseur cloud avec votre clé d’API, ou un serveur local comme LM Studio. Choisissez-en un pour commencer :</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>Ajouter {name}</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Add a provider</source>
            <translation>Ajoutez un fournisseur</translation>
        </message>
        <message>
            <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
            <translation>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio ou tout serveur compatible OpenAI. Les clés restent dans le trousseau de votre système.</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>Ajouter un fournisseur…</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>Choisissez un modèle</translation>
        </message>
        <message>
            <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
            <translation>Tapez dans le sélecteur de modèle pour chercher parmi tous les modèles de vos fournisseurs ; mettez une étoile à ceux que vous utilisez le plus.</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Choisir un modèle…</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Demander</translation>
        </message>
        <message>
            <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
            <translation>Écrivez ci-dessous et appuyez sur Entrée. Choisissez un dossier de travail et l’assistant pourra lire et modifier ses fichiers — il demande avant de changer quoi que ce soit.</translation>
        </message>
        <message>
            <source>Write a message</source>
            <translation>Écrire un message</translation>
        </message>
        <message>
            <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
            <translation>&lt;h2&gt;Bienvenue dans Assista&lt;/h2&gt;</translation>
        </message>
        <message>
            <source>Three steps to your first answer:</source>
            <translation>Trois étapes jusqu’à votre première réponse :</translation>
        </message>
        <message>
            <source>Or start from a &lt;a href="starters"&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
            <translation>Ou partez d’un &lt;a href="starters"&gt;assistant tout prêt&lt;/a&gt; : traducteur, programmeur, correcteur…</translation>
        </message>
        <message>
            <source>Starter assistants</source>
            <translation>Assistants de départ</translation>
        </message>
        <message>
            <source>Step {number} done</source>
            <translation>Étape {number} terminée</translation>
        </message>
        <message>
            <source>Step {number}</source>
            <translation>Étape {number}</translation>
        </message>
    </context>
    <context>
        <name>_PathRow</name>
        <message>
            <source>Browse…</source>
            <translation>Parcourir…</translation>
        </message>
    </context>
</TS>

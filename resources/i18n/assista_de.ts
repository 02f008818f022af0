<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en">
    <context>
        <name>AboutDialog</name>
        <message>
            <source>No licence text is shipped with this component; its licence is named above.</source>
            <translation>Diese Komponente enthält keinen Lizenztext; ihre Lizenz ist oben genannt.</translation>
        </message>
        <message>
            <source>About {app}</source>
            <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
            <translation>Über {app}</translation>
        </message>
        <message>
            <source>A desktop chat client for large language models.</source>
            <translation>Ein Desktop-Chat-Client für große Sprachmodelle.</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>Lizenz: {licence}</translation>
        </message>
        <message>
            <source>{app} is built with these components:</source>
            <translation>{app} verwendet diese Komponenten:</translation>
        </message>
        <message>
            <source>Bundled components</source>
            <translation>Enthaltene Komponenten</translation>
        </message>
        <message>
            <source>Component</source>
            <translation>Komponente</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>Version</translation>
        </message>
        <message>
            <source>Licence</source>
            <translation>Lizenz</translation>
        </message>
        <message>
            <source>Licence text</source>
            <translation>Lizenztext</translation>
        </message>
        <message>
            <source>Select a component to read its licence.</source>
            <translation>Wählen Sie eine Komponente, um ihre Lizenz zu lesen.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImage</name>
        <message>
            <source>Image {width}×{height}</source>
            <translation>Bild {width}×{height}</translation>
        </message>
        <message>
            <source>Save as…</source>
            <translation>Speichern unter…</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>Save image</source>
            <translation>Bild speichern</translation>
        </message>
        <message>
            <source>Images (*.{suffix})</source>
            <translation>Bilder (*.{suffix})</translation>
        </message>
        <message>
            <source>The image could not be saved: {reason}</source>
            <translation>Das Bild konnte nicht gespeichert werden: {reason}</translation>
        </message>
        <message>
            <source>The image could not be opened: {reason}</source>
            <translation>Das Bild konnte nicht geöffnet werden: {reason}</translation>
        </message>
        <message>
            <source>No application opens images.</source>
            <translation>Keine Anwendung öffnet Bilder.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImages</name>
        <message>
            <source>Image not shown: it is larger than the app allows (10 MB, 8192×8192 pixels).</source>
            <extracomment>The widest an answer's image is shown (a click on Open shows it whole). Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).</extracomment>
            <translation>Bild nicht angezeigt: Es ist größer, als die App erlaubt (10 MB, 8192×8192 Pixel).</translation>
        </message>
        <message>
            <source>Image not shown: the provider sent a link instead of the picture.</source>
            <translation>Bild nicht angezeigt: Der Anbieter hat statt des Bildes einen Link gesendet.</translation>
        </message>
        <message>
            <source>Image not shown: it could not be downloaded.</source>
            <translation>Bild nicht angezeigt: Es konnte nicht heruntergeladen werden.</translation>
        </message>
        <message>
            <source>The provider could not make the image.</source>
            <translation>Der Anbieter konnte das Bild nicht erstellen.</translation>
        </message>
        <message>
            <source>Image not shown: the data is not a picture the app can show (PNG, JPEG, GIF or WebP).</source>
            <translation>Bild nicht angezeigt: Die Daten sind kein Bild, das die App anzeigen kann (PNG, JPEG, GIF oder WebP).</translation>
        </message>
        <message>
            <source>Image not shown: its data is broken.</source>
            <translation>Bild nicht angezeigt: Seine Daten sind beschädigt.</translation>
        </message>
    </context>
    <context>
        <name>AppTray</name>
        <message>
            <source>{app} tray menu</source>
            <translation>{app}-Menü im Infobereich</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Neuer Chat</translation>
        </message>
        <message>
            <source>&amp;Quick ask…</source>
            <translation>&amp;Schnellfrage…</translation>
        </message>
        <message>
            <source>&amp;Hide window</source>
            <translation>Fenster &amp;ausblenden</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Beenden</translation>
        </message>
        <message>
            <source>&amp;Show window</source>
            <translation>Fenster &amp;anzeigen</translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>… {count} more lines</source>
            <translation>… {count} weitere Zeilen</translation>
        </message>
        <message>
            <source>(empty diff)</source>
            <translation>(leerer Diff)</translation>
        </message>
        <message>
            <source>built-in tool</source>
            <translation>integriertes Werkzeug</translation>
        </message>
        <message>
            <source>MCP server “{server}”</source>
            <translation>MCP-Server „{server}“</translation>
        </message>
        <message>
            <source>Changes</source>
            <translation>Änderungen</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Befehl</translation>
        </message>
        <message>
            <source>URL</source>
            <translation>URL</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumente</translation>
        </message>
        <message>
            <source>Approval needed: {tool}</source>
            <translation>Zustimmung nötig: {tool}</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Zustimmung nötig</translation>
        </message>
        <message>
            <source>Chat: {title}</source>
            <translation>Chat: {title}</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Neuer Chat</translation>
        </message>
        <message>
            <source>Show the chat that asks</source>
            <translation>Den fragenden Chat anzeigen</translation>
        </message>
        <message>
            <source>Show chat {title}</source>
            <translation>Chat {title} anzeigen</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vorschau</translation>
        </message>
        <message>
            <source>Reason for denying (optional)</source>
            <translation>Grund der Ablehnung (optional)</translation>
        </message>
        <message>
            <source>If you deny, this reason is sent to the assistant</source>
            <translation>Wenn Sie ablehnen, wird diese Begründung an den Assistenten gesendet</translation>
        </message>
        <message>
            <source>Reason for denying</source>
            <translation>Grund der Ablehnung</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Diesen Aufruf jetzt ausführen; beim nächsten Mal wieder fragen</translation>
        </message>
        <message>
            <source>Run {tool} without asking in this chat</source>
            <translation>{tool} in diesem Chat ohne Nachfrage ausführen</translation>
        </message>
        <message>
            <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
            <translation>Für {tool} nie wieder fragen, in keinem Chat (widerrufen unter Einstellungen → Werkzeuge)</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told (with your reason)</source>
            <translation>Nicht ausführen; der Assistent erfährt es (mit Ihrer Begründung)</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on (forget it in Settings → Tools)</source>
            <translation>Die Befehle dieses Chats dürfen ab jetzt das Netzwerk nutzen (in Einstellungen → Werkzeuge vergessen)</translation>
        </message>
        <message>
            <source>Run this command with the network; ask again next time</source>
            <translation>Diesen Befehl mit Netzwerk ausführen; nächstes Mal erneut fragen</translation>
        </message>
        <message>
            <source>Full arguments</source>
            <translation>Alle Argumente</translation>
        </message>
        <message>
            <source>Allow network for this &amp;chat</source>
            <translation>Netzwerk für diesen &amp;Chat erlauben</translation>
        </message>
        <message>
            <source>Allow &amp;once</source>
            <translation>&amp;Einmal erlauben</translation>
        </message>
        <message>
            <source>Allow for this &amp;chat</source>
            <translation>Für diesen &amp;Chat erlauben</translation>
        </message>
        <message>
            <source>Al&amp;ways allow</source>
            <translation>&amp;Immer erlauben</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>&amp;Ablehnen</translation>
        </message>
        <message>
            <source>Allowed once</source>
            <translation>Einmal erlaubt</translation>
        </message>
        <message>
            <source>Network allowed for this chat's commands</source>
            <translation>Netzwerk für die Befehle dieses Chats erlaubt</translation>
        </message>
        <message>
            <source>Allowed for this chat</source>
            <translation>Für diesen Chat erlaubt</translation>
        </message>
        <message>
            <source>Always allowed</source>
            <translation>Immer erlaubt</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Abgelehnt</translation>
        </message>
        <message>
            <source>Always allowed within {scope}</source>
            <translation>Immer erlaubt innerhalb von {scope}</translation>
        </message>
    </context>
    <context>
        <name>ApprovalTitle</name>
        <message>
            <source>Fetch {host}</source>
            <translation>{host} abrufen</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>Einen Befehl ausführen</translation>
        </message>
        <message>
            <source>Run a command in {folder}</source>
            <translation>Einen Befehl in {folder} ausführen</translation>
        </message>
        <message>
            <source>Create {path}</source>
            <translation>{path} erstellen</translation>
        </message>
        <message>
            <source>Overwrite {path}</source>
            <translation>{path} überschreiben</translation>
        </message>
        <message>
            <source>Edit {path}</source>
            <translation>{path} bearbeiten</translation>
        </message>
        <message>
            <source>Save a memory</source>
            <translation>Eine Erinnerung speichern</translation>
        </message>
        <message>
            <source>Allow network for this chat's commands</source>
            <translation>Netzwerk für die Befehle dieses Chats erlauben</translation>
        </message>
        <message>
            <source>Sandboxed · no network · writes only in the workspace</source>
            <translation>In der Sandbox · kein Netzwerk · schreibt nur im Arbeitsordner</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed · writes only in the workspace</source>
            <translation>In der Sandbox · Netzwerk erlaubt · schreibt nur im Arbeitsordner</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed for this chat · writes only in the workspace</source>
            <translation>In der Sandbox · Netzwerk für diesen Chat erlaubt · schreibt nur im Arbeitsordner</translation>
        </message>
        <message>
            <source>Not sandboxed: the sandbox is turned off in Settings → Tools</source>
            <translation>Keine Sandbox: Die Sandbox ist in Einstellungen → Werkzeuge ausgeschaltet</translation>
        </message>
        <message>
            <source>Not sandboxed: this system offers no sandbox (install bubblewrap)</source>
            <translation>Keine Sandbox: Dieses System bietet keine (bubblewrap installieren)</translation>
        </message>
    </context>
    <context>
        <name>AssistantForm</name>
        <message>
            <source>e.g. Code reviewer</source>
            <translation>z. B. Code-Reviewer</translation>
        </message>
        <message>
            <source>Optional: what it is for</source>
            <translation>Optional: wofür er da ist</translation>
        </message>
        <message>
            <source>The system prompt of chats started from it (empty: the default system prompt)</source>
            <translation>Der Systemprompt von Chats, die damit beginnen (leer: der Standard-Systemprompt)</translation>
        </message>
        <message>
            <source>Default provider</source>
            <translation>Standardanbieter</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Standardmodell</translation>
        </message>
        <message>
            <source>The provider's default model</source>
            <translation>Das Standardmodell des Anbieters</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Festlegen</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Temperatur</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Nur diese Werkzeuge</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Nur diese Werkzeuge (sonst die Werkzeugeinstellungen der App)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Aktivierte Werkzeuge</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Name</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Beschreibung</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Systemprompt</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>Anbieter</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Werkzeuge</translation>
        </message>
        <message>
            <source>The provider chosen in the window</source>
            <translation>Der im Fenster gewählte Anbieter</translation>
        </message>
        <message>
            <source>(removed provider {id})</source>
            <translation>(entfernter Anbieter {id})</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Skills</translation>
        </message>
        <message>
            <source>Skills offered to the chats that use this assistant (Settings → Skills adds them)</source>
            <translation>Skills, die den Chats mit diesem Assistenten angeboten werden (Einstellungen → Skills fügt sie hinzu)</translation>
        </message>
        <message>
            <source>No skills found (Settings → Skills adds them).</source>
            <translation>Keine Skills gefunden (Einstellungen → Skills fügt sie hinzu).</translation>
        </message>
    </context>
    <context>
        <name>AssistantGallery</name>
        <message>
            <source>Starter assistants</source>
            <translation>Vorlagen für Assistenten</translation>
        </message>
        <message>
            <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
            <translation>Fertige Assistenten als Ausgangspunkt. Fügen Sie die gewünschten hinzu: Jeder wird zu Ihrem eigenen, den Sie unter Assistenten bearbeiten oder löschen können.</translation>
        </message>
    </context>
    <context>
        <name>AssistantPicker</name>
        <message>
            <source>Assistant</source>
            <translation>Assistent</translation>
        </message>
        <message>
            <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
            <translation>Der Assistent dieses Chats: sein Systemprompt, Modell, Temperatur und Werkzeuge</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Kein Assistent</translation>
        </message>
        <message>
            <source>Manage assistants…</source>
            <translation>Assistenten verwalten…</translation>
        </message>
    </context>
    <context>
        <name>AssistantsDialog</name>
        <message>
            <source>Assistants</source>
            <translation>Assistenten</translation>
        </message>
        <message>
            <source>New</source>
            <translation>Neu</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplizieren</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>Nach oben</translation>
        </message>
        <message>
            <source>Move up (drag to reorder)</source>
            <translation>Nach oben (zum Sortieren ziehen)</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>Nach unten</translation>
        </message>
        <message>
            <source>Move down (drag to reorder)</source>
            <translation>Nach unten (zum Sortieren ziehen)</translation>
        </message>
        <message>
            <source>Starter assistants…</source>
            <translation>Vorlagen für Assistenten…</translation>
        </message>
        <message>
            <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
            <translation>Fertige Assistenten (Übersetzer, Programmierer, Lektor…) hinzufügen und als eigene bearbeiten</translation>
        </message>
        <message>
            <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
            <translation>Noch keine Assistenten. Füllen Sie das Formular aus und klicken Sie auf Speichern, oder fügen Sie fertige über „Vorlagen für Assistenten“ hinzu.</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>New assistant</source>
            <translation>Neuer Assistent</translation>
        </message>
        <message>
            <source>New assistant {number}</source>
            <translation>Neuer Assistent {number}</translation>
        </message>
        <message>
            <source>Delete assistant</source>
            <translation>Assistent löschen</translation>
        </message>
        <message>
            <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
            <translation>Den Assistenten „{name}“ löschen? Damit begonnene Chats behalten ihre Nachrichten.</translation>
        </message>
    </context>
    <context>
        <name>AttachFilters</name>
        <message>
            <source>Images</source>
            <translation>Bilder</translation>
        </message>
        <message>
            <source>PDF documents</source>
            <translation>PDF-Dokumente</translation>
        </message>
        <message>
            <source>Word documents</source>
            <translation>Word-Dokumente</translation>
        </message>
        <message>
            <source>Spreadsheets</source>
            <translation>Tabellen</translation>
        </message>
        <message>
            <source>Presentations</source>
            <translation>Präsentationen</translation>
        </message>
        <message>
            <source>EPUB books</source>
            <translation>EPUB-Bücher</translation>
        </message>
        <message>
            <source>Web pages</source>
            <translation>Webseiten</translation>
        </message>
        <message>
            <source>Text and source code</source>
            <translation>Text und Quellcode</translation>
        </message>
        <message>
            <source>All supported files ({patterns})</source>
            <translation>Alle unterstützten Dateien ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Alle Dateien (*)</translation>
        </message>
    </context>
    <context>
        <name>AttachmentCard</name>
        <message>
            <source>{name} is no longer at {path}, and the chat keeps only its text.</source>
            <translation>{name} liegt nicht mehr unter {path}, und der Chat enthält nur seinen Text.</translation>
        </message>
        <message>
            <source>{name} could not be opened: {reason}</source>
            <translation>{name} konnte nicht geöffnet werden: {reason}</translation>
        </message>
        <message>
            <source>No application opens {name}.</source>
            <translation>Keine Anwendung öffnet {name}.</translation>
        </message>
        <message>
            <source>Open {name}</source>
            <translation>{name} öffnen</translation>
        </message>
        <message>
            <source>Open {file}</source>
            <translation>{file} öffnen</translation>
        </message>
        <message>
            <source>Show extracted text</source>
            <translation>Extrahierten Text anzeigen</translation>
        </message>
        <message>
            <source>Extracted text of {name}</source>
            <translation>Extrahierter Text von {name}</translation>
        </message>
        <message>
            <source>Hide extracted text</source>
            <translation>Extrahierten Text ausblenden</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove {name}</source>
            <translation>{name} entfernen</translation>
        </message>
    </context>
    <context>
        <name>BodyMenu</name>
        <message>
            <source>Copy</source>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Copy code block</source>
            <translation>Codeblock kopieren</translation>
        </message>
        <message>
            <source>Copy link address</source>
            <translation>Linkadresse kopieren</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>Alles auswählen</translation>
        </message>
    </context>
    <context>
        <name>BranchBar</name>
        <message>
            <source>Edit</source>
            <translation>Bearbeiten</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept)</source>
            <translation>Diese Nachricht bearbeiten und erneut senden (das Original bleibt erhalten)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>Neu erzeugen</translation>
        </message>
        <message>
            <source>Answer again (this answer is kept)</source>
            <translation>Erneut antworten (diese Antwort bleibt erhalten)</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>Vorherige Version</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>Nächste Version</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>Version {index} von {count}</translation>
        </message>
    </context>
    <context>
        <name>BundleDialog</name>
        <message>
            <source>{path} is not a file.</source>
            <translation>{path} ist keine Datei.</translation>
        </message>
        <message>
            <source>The extension is refused: {reason}</source>
            <translation>Die Erweiterung wird abgelehnt: {reason}</translation>
        </message>
        <message>
            <source>An MCP server named {name} is already installed.</source>
            <translation>Ein MCP-Server namens {name} ist bereits installiert.</translation>
        </message>
        <message>
            <source>{field} is required.</source>
            <translation>{field} ist erforderlich.</translation>
        </message>
        <message>
            <source>{field} is not a valid value.</source>
            <translation>{field} hat keinen gültigen Wert.</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Erweiterung installieren</translation>
        </message>
        <message>
            <source>{name} {version}</source>
            <translation>{name} {version}</translation>
        </message>
        <message>
            <source>By {author}. {description}</source>
            <translation>Von {author}. {description}</translation>
        </message>
        <message>
            <source>It runs on this computer as the MCP server {name}, with your permissions; its tools ask before they act unless you allow them. Secrets go to the keyring.</source>
            <translation>Sie läuft auf diesem Computer als MCP-Server {name} mit Ihren Rechten; ihre Werkzeuge fragen vor dem Handeln, sofern Sie sie nicht erlauben. Geheimnisse kommen in den Schlüsselbund.</translation>
        </message>
        <message>
            <source>Install</source>
            <translation>Installieren</translation>
        </message>
        <message>
            <source>The extension could not be installed: {reason}</source>
            <translation>Die Erweiterung konnte nicht installiert werden: {reason}</translation>
        </message>
    </context>
    <context>
        <name>CallProgress</name>
        <message>
            <source>Progress</source>
            <translation>Fortschritt</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>A temporary chat has one version of each message: edit and regenerate are not available.</source>
            <translation>Ein temporärer Chat hat von jeder Nachricht nur eine Fassung: Bearbeiten und Neu erzeugen sind nicht verfügbar.</translation>
        </message>
        <message>
            <source>This chat is answering in another Assista process (assista ask); try again once that answer has finished.</source>
            <translation>Dieser Chat antwortet gerade in einem anderen Assista-Prozess (assista ask); versuchen Sie es erneut, sobald diese Antwort fertig ist.</translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>Warte, bis eine andere Antwort dieses Anbieters fertig ist…</translation>
        </message>
        <message>
            <source>Memory removed.</source>
            <translation>Erinnerung entfernt.</translation>
        </message>
        <message>
            <source>This memory was already deleted.</source>
            <translation>Diese Erinnerung war schon gelöscht.</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Assista JSON, lossless (*.json)</source>
            <translation>Assista-JSON, verlustfrei (*.json)</translation>
        </message>
        <message>
            <source>Markdown, readable (*.md)</source>
            <translation>Markdown, lesbar (*.md)</translation>
        </message>
        <message>
            <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
            <translation>Chat-Exporte (*.json *.zip);;Assista-JSON-Export (*.json);;ChatGPT-Export (conversations.json *.zip);;Alle Dateien (*)</translation>
        </message>
    </context>
    <context>
        <name>ChatKnowledgeButton</name>
        <message>
            <source>Knowledge bases of this chat</source>
            <translation>Wissensdatenbanken dieses Chats</translation>
        </message>
        <message>
            <source>The model can search the checked knowledge bases</source>
            <translation>Das Modell kann die markierten Wissensdatenbanken durchsuchen</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Keine</translation>
        </message>
        <message>
            <source>No knowledge bases yet (Knowledge…)</source>
            <translation>Noch keine Wissensdatenbanken (Wissen…)</translation>
        </message>
    </context>
    <context>
        <name>ChatPane</name>
        <message>
            <source>Delete messages</source>
            <translation>Nachrichten löschen</translation>
        </message>
        <message>
            <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
            <translation>Diese Nachricht und alles danach löschen? Andere Versionen darunter werden ebenfalls gelöscht. Dies kann nicht rückgängig gemacht werden.</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Dateien anhängen</translation>
        </message>
    </context>
    <context>
        <name>ChatSettingsPopover</name>
        <message>
            <source>This chat</source>
            <translation>Dieser Chat</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>Ändern…</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Festlegen</translation>
        </message>
        <message>
            <source>Set the temperature</source>
            <translation>Temperatur festlegen</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Temperatur</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>Max. Tokens</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Denkaufwand</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Im Web suchen</translation>
        </message>
        <message>
            <source>Search the web in this chat</source>
            <translation>In diesem Chat im Web suchen</translation>
        </message>
        <message>
            <source>Use the defaults</source>
            <translation>Standardwerte verwenden</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Schlussfolgern</translation>
        </message>
        <message>
            <source>Web</source>
            <translation>Web</translation>
        </message>
        <message>
            <source>Knowledge</source>
            <translation>Wissen</translation>
        </message>
        <message>
            <source>{model} — {provider}</source>
            <translation>{model} — {provider}</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>kein Modell</translation>
        </message>
        <message>
            <source>No provider yet</source>
            <translation>Noch kein Anbieter</translation>
        </message>
        <message>
            <source>Default ({value})</source>
            <translation>Standard ({value})</translation>
        </message>
        <message>
            <source>Default (the model's)</source>
            <translation>Standard (des Modells)</translation>
        </message>
        <message>
            <source>off</source>
            <translation>aus</translation>
        </message>
        <message>
            <source>on</source>
            <translation>an</translation>
        </message>
        <message>
            <source>This model does not say it can reason; the setting is sent anyway.</source>
            <translation>Dieses Modell gibt nicht an, dass es schlussfolgern kann; die Einstellung wird trotzdem gesendet.</translation>
        </message>
        <message>
            <source>the assistant {name}</source>
            <translation>dem Assistenten {name}</translation>
        </message>
        <message>
            <source>the provider</source>
            <translation>dem Anbieter</translation>
        </message>
        <message>
            <source>Unset values come from {source}. These apply to this chat only.</source>
            <translation>Nicht gesetzte Werte kommen von {source}. Diese Einstellungen gelten nur für diesen Chat.</translation>
        </message>
        <message>
            <source>The provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
            <translation>Die eigene Suche des Anbieters, falls vorhanden (OpenAI Responses, Anthropic, Gemini, OpenRouter), sonst der in den Einstellungen gewählte Suchdienst</translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message>
            <source>Conversation</source>
            <translation>Unterhaltung</translation>
        </message>
        <message>
            <source>Zoom &amp;in</source>
            <translation>Ver&amp;größern</translation>
        </message>
        <message>
            <source>Zoom &amp;out</source>
            <translation>Ver&amp;kleinern</translation>
        </message>
        <message>
            <source>&amp;Actual size</source>
            <translation>&amp;Originalgröße</translation>
        </message>
        <message>
            <source>Theme: follow &amp;system</source>
            <translation>Design: &amp;System folgen</translation>
        </message>
        <message>
            <source>Theme: &amp;light</source>
            <translation>Design: &amp;hell</translation>
        </message>
        <message>
            <source>Theme: &amp;dark</source>
            <translation>Design: &amp;dunkel</translation>
        </message>
        <message>
            <source>Theme: &amp;high contrast</source>
            <translation>Design: &amp;hoher Kontrast</translation>
        </message>
    </context>
    <context>
        <name>CompareChooser</name>
        <message>
            <source>Compare models</source>
            <translation>Modelle vergleichen</translation>
        </message>
        <message>
            <source>Pick {low} to {high} models. Each answers the same question with this chat's conversation, attachments and tools; every answer is kept as a version of the reply.</source>
            <translation>Wählen Sie {low} bis {high} Modelle. Jedes beantwortet dieselbe Frage mit dem Verlauf, den Anhängen und Werkzeugen dieses Chats; jede Antwort bleibt als Version der Antwort erhalten.</translation>
        </message>
        <message>
            <source>Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to compare.</source>
            <translation>Tasten: Tippen zum Suchen, ↑/↓ zum Bewegen, Eingabe zum Hinzufügen oder Entfernen, Strg+Eingabe zum Vergleichen.</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Modelle suchen</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modelle</translation>
        </message>
        <message>
            <source>Chosen models</source>
            <translation>Gewählte Modelle</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Vergleichen</translation>
        </message>
        <message numerus="yes">
            <source>Chosen (%n): </source>
            <translation>
                <numerusform>Gewählt (%n): </numerusform>
                <numerusform>Gewählt (%n): </numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing chosen yet: click models in the list.</source>
            <translation>Noch nichts gewählt: Klicken Sie auf Modelle in der Liste.</translation>
        </message>
        <message>
            <source>Choose {low} to {high} models</source>
            <translation>Wählen Sie {low} bis {high} Modelle</translation>
        </message>
    </context>
    <context>
        <name>CompareColumnView</name>
        <message>
            <source>Answer of {model}</source>
            <translation>Antwort von {model}</translation>
        </message>
        <message>
            <source>Figures of this answer</source>
            <translation>Kennzahlen dieser Antwort</translation>
        </message>
        <message>
            <source>Stop this answer (the others go on); what it wrote so far is kept</source>
            <translation>Diese Antwort stoppen (die anderen laufen weiter); das bisher Geschriebene bleibt erhalten</translation>
        </message>
        <message>
            <source>Stop {model}</source>
            <translation>{model} stoppen</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Diese behalten</translation>
        </message>
        <message>
            <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
            <translation>Diese Antwort im Chat zeigen und dort weitermachen; die anderen Antworten bleiben als weitere Versionen (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the answer of {model}</source>
            <translation>Antwort von {model} behalten</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>Fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>unbekannter Fehler</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Gestoppt</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Am Limit der Werkzeugrunden gestoppt</translation>
        </message>
        <message>
            <source>Keep this answer first: in the chat it can be edited, regenerated, continued, forked or deleted.</source>
            <translation>Behalten Sie zuerst diese Antwort: Im Chat kann sie dann bearbeitet, neu erzeugt, fortgesetzt, abgezweigt oder gelöscht werden.</translation>
        </message>
        <message>
            <source>{seconds} s to first token</source>
            <translation>{seconds} s bis zum ersten Token</translation>
        </message>
        <message>
            <source>{rate} tok/s</source>
            <translation>{rate} Tok./s</translation>
        </message>
        <message>
            <source>{input} in · {output} out</source>
            <translation>{input} rein · {output} raus</translation>
        </message>
        <message>
            <source>{output} out</source>
            <translation>{output} raus</translation>
        </message>
        <message>
            <source>Waiting for the first token…</source>
            <translation>Warte auf das erste Token…</translation>
        </message>
    </context>
    <context>
        <name>CompareLauncher</name>
        <message>
            <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
            <translation>Geben Sie zuerst die zu vergleichende Frage ein und klicken Sie dann auf Vergleichen (oder senden Sie sie als /compare FRAGE).</translation>
        </message>
    </context>
    <context>
        <name>CompareView</name>
        <message>
            <source>Compare answers</source>
            <translation>Antworten vergleichen</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n answer(s)</source>
            <translation>
                <numerusform>Vergleich von %n Antwort</numerusform>
                <numerusform>Vergleich von %n Antworten</numerusform>
            </translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>Zurück zum Chat</translation>
        </message>
        <message>
            <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
            <translation>Zurück zum Chat mit der ersten Antwort (oder der behaltenen); jede Antwort bleibt als Version der Antwort erhalten</translation>
        </message>
    </context>
    <context>
        <name>Composer</name>
        <message>
            <source>Built-in</source>
            <translation>Integriert</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
            <translation>Nachricht…  (Eingabe zum Senden · Umschalt+Eingabe für neue Zeile)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Dateien anhängen</translation>
        </message>
        <message>
            <source>No workspace</source>
            <translation>Kein Arbeitsordner</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may read</source>
            <translation>Den Ordner wählen, den die Dateiwerkzeuge lesen dürfen</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Arbeitsordner</translation>
        </message>
        <message>
            <source>Switch tools on or off for this chat</source>
            <translation>Werkzeuge für diesen Chat ein- oder ausschalten</translation>
        </message>
        <message>
            <source>Tools for this chat</source>
            <translation>Werkzeuge für diesen Chat</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Vergleichen</translation>
        </message>
        <message>
            <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
            <translation>2 bis 4 Modelle gleichzeitig fragen und ihre Antworten nebeneinander sehen (oder /compare eingeben)</translation>
        </message>
        <message>
            <source>Attach images, PDF, Word, Excel, PowerPoint, EPUB or text files</source>
            <translation>Bilder, PDF-, Word-, Excel-, PowerPoint-, EPUB- oder Textdateien anhängen</translation>
        </message>
        <message>
            <source>Compare models</source>
            <translation>Modelle vergleichen</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>Research: the model plans, searches the web and the chat's knowledge bases in rounds, reads pages and answers with a report citing them (limits in Settings)</source>
            <translation>Recherche: Das Modell plant, durchsucht in Runden das Web und die Wissensdatenbanken des Chats, liest Seiten und antwortet mit einem Bericht, der sie zitiert (Grenzen in den Einstellungen)</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Recherche</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Stopp</translation>
        </message>
        <message>
            <source>Workspace folder: {name}</source>
            <translation>Arbeitsordner: {name}</translation>
        </message>
        <message>
            <source>Choose workspace…</source>
            <translation>Ordner wählen…</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may use</source>
            <translation>Den Ordner wählen, den die Dateiwerkzeuge verwenden dürfen</translation>
        </message>
        <message>
            <source>Workspace folder: none</source>
            <translation>Arbeitsordner: keiner</translation>
        </message>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>Tools: %n an</numerusform>
                <numerusform>Tools: %n an</numerusform>
            </translation>
        </message>
        <message>
            <source>tools: none</source>
            <translation>Tools: keine</translation>
        </message>
        <message>
            <source>Choose a workspace folder to use the file tools</source>
            <translation>Wählen Sie einen Arbeitsordner, um die Dateiwerkzeuge zu nutzen</translation>
        </message>
        <message>
            <source>No tools available</source>
            <translation>Keine Werkzeuge verfügbar</translation>
        </message>
        <message>
            <source>All on</source>
            <translation>Alle an</translation>
        </message>
        <message>
            <source>All off</source>
            <translation>Alle aus</translation>
        </message>
        <message>
            <source>Tool settings…</source>
            <translation>Werkzeugeinstellungen…</translation>
        </message>
        <message>
            <source>MCP servers…</source>
            <translation>MCP-Server…</translation>
        </message>
    </context>
    <context>
        <name>ConversationActions</name>
        <message>
            <source>&amp;Import chats…</source>
            <translation>Chats &amp;importieren…</translation>
        </message>
        <message>
            <source>&amp;Export chat…</source>
            <translation>Chat &amp;exportieren…</translation>
        </message>
        <message>
            <source>Export &amp;all chats…</source>
            <translation>&amp;Alle Chats exportieren…</translation>
        </message>
        <message>
            <source>&amp;Chat</source>
            <translation>&amp;Chat</translation>
        </message>
        <message>
            <source>&amp;Search chats…</source>
            <translation>Chats &amp;durchsuchen…</translation>
        </message>
        <message>
            <source>&amp;Find in this chat…</source>
            <translation>In diesem Chat &amp;suchen…</translation>
        </message>
        <message>
            <source>Edit system &amp;prompt…</source>
            <translation>System&amp;prompt bearbeiten…</translation>
        </message>
        <message>
            <source>&amp;Assistants…</source>
            <translation>&amp;Assistenten…</translation>
        </message>
        <message>
            <source>Choose &amp;model…</source>
            <translation>&amp;Modell wählen…</translation>
        </message>
        <message>
            <source>Stop &amp;all answers</source>
            <translation>&amp;Alle Antworten stoppen</translation>
        </message>
        <message>
            <source>Show &amp;chats</source>
            <translation>&amp;Chats anzeigen</translation>
        </message>
        <message>
            <source>Show a&amp;rchived chats</source>
            <translation>A&amp;rchivierte Chats anzeigen</translation>
        </message>
        <message>
            <source>Show &amp;trash</source>
            <translation>&amp;Papierkorb anzeigen</translation>
        </message>
    </context>
    <context>
        <name>DefaultPrompt</name>
        <message>
            <source>You are Assista, a helpful assistant running in a desktop app. Use the available tools when they help answer the user's question. Format answers in Markdown.</source>
            <translation>Du bist Assista, ein hilfreicher Assistent in einer Desktop-App. Nutze die verfügbaren Werkzeuge, wenn sie helfen, die Frage des Nutzers zu beantworten. Formatiere Antworten in Markdown.</translation>
        </message>
    </context>
    <context>
        <name>DesktopNotifier</name>
        <message>
            <source>Answer failed</source>
            <translation>Antwort fehlgeschlagen</translation>
        </message>
        <message>
            <source>Answer ready</source>
            <translation>Antwort fertig</translation>
        </message>
        <message>
            <source>A chat</source>
            <translation>Ein Chat</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Zustimmung nötig</translation>
        </message>
        <message>
            <source>{chat}: {tool} waits for your approval</source>
            <translation>{chat}: {tool} wartet auf Ihre Zustimmung</translation>
        </message>
    </context>
    <context>
        <name>DesktopTab</name>
        <message>
            <source>Keep running in the tray</source>
            <extracomment>The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at once, so the status below says whether the desktop took it.</extracomment>
            <translation>Im Infobereich weiterlaufen</translation>
        </message>
        <message>
            <source>Closing the window hides it; the tray icon's menu brings it back, and its Quit quits</source>
            <translation>Schließen blendet das Fenster nur aus; das Menü des Symbols im Infobereich holt es zurück, und dessen „Beenden“ beendet die App</translation>
        </message>
        <message>
            <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
            <translation>Dieser Desktop zeigt keine Symbole im Infobereich: Schließen des Fensters beendet die App, unabhängig von dieser Einstellung</translation>
        </message>
        <message>
            <source>Tray</source>
            <translation>Infobereich</translation>
        </message>
        <message>
            <source>Clear the quick ask shortcut</source>
            <translation>Kürzel für Schnellfrage löschen</translation>
        </message>
        <message>
            <source>No global shortcut</source>
            <translation>Kein globales Kürzel</translation>
        </message>
        <message>
            <source>Quick ask shortcut</source>
            <translation>Kürzel für Schnellfrage</translation>
        </message>
        <message>
            <source>Press the key combination that opens the quick-ask window from any application; it applies at once</source>
            <translation>Drücken Sie die Tastenkombination, die das Schnellfrage-Fenster aus jeder Anwendung öffnet; sie gilt sofort</translation>
        </message>
        <message>
            <source>Click, then press the combination (Ctrl, Alt or Meta with a key)</source>
            <translation>Klicken Sie und drücken Sie dann die Kombination (Strg, Alt oder Meta mit einer Taste)</translation>
        </message>
        <message>
            <source>Quick ask shortcut status</source>
            <translation>Status des Schnellfrage-Kürzels</translation>
        </message>
        <message>
            <source>Look for a new version once a day</source>
            <translation>Einmal am Tag nach einer neuen Version suchen</translation>
        </message>
        <message>
            <source>Updates</source>
            <translation>Updates</translation>
        </message>
        <message>
            <source>Release feed URL</source>
            <translation>URL des Release-Feeds</translation>
        </message>
        <message>
            <source>A feed in GitHub's Releases API format; empty: the project's own releases</source>
            <translation>Ein Feed im Format der GitHub-Releases-API; leer: die Releases des Projekts</translation>
        </message>
        <message>
            <source>Release feed</source>
            <translation>Release-Feed</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir): the app never looks for updates.</source>
            <translation>Portabler Modus (--data-dir): Die App sucht nie nach Updates.</translation>
        </message>
        <message>
            <source>The release feed must be an https:// URL.</source>
            <translation>Der Release-Feed muss eine https://-URL sein.</translation>
        </message>
    </context>
    <context>
        <name>EarlierColumnView</name>
        <message>
            <source>Assistant</source>
            <translation>Assistent</translation>
        </message>
        <message>
            <source>Earlier answer of {model}</source>
            <translation>Frühere Antwort von {model}</translation>
        </message>
        <message>
            <source>The answer you asked about</source>
            <translation>Die Antwort, nach der Sie gefragt haben</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Diese behalten</translation>
        </message>
        <message>
            <source>Go on from this answer, as before; the new answers stay as its other versions (‹ n/m ›)</source>
            <translation>Wie bisher mit dieser Antwort weitermachen; die neuen Antworten bleiben als weitere Versionen (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the earlier answer</source>
            <translation>Frühere Antwort behalten</translation>
        </message>
    </context>
    <context>
        <name>EarlyQuestion</name>
        <message>
            <source>Question sent. Opening the chat…</source>
            <translation>Frage gesendet. Der Chat wird geöffnet…</translation>
        </message>
    </context>
    <context>
        <name>EditBanner</name>
        <message>
            <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
            <translation>Sie bearbeiten eine frühere Nachricht — Eingabe sendet sie als neue Version; das Original und seine Antworten bleiben erhalten (‹ › wechselt).</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>Bearbeiten abbrechen</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>{provider} did not accept the API key. Check the key in Providers.</source>
            <extracomment>code (or "code+param": the sentence when that param is known) -&gt; the sentence.</extracomment>
            <translation>{provider} hat den API-Schlüssel nicht angenommen. Prüfen Sie den Schlüssel unter „Anbieter“.</translation>
        </message>
        <message>
            <source>{provider} did not accept the API key (HTTP {status}). Check the key in Providers.</source>
            <translation>{provider} hat den API-Schlüssel nicht angenommen (HTTP {status}). Prüfen Sie den Schlüssel unter „Anbieter“.</translation>
        </message>
        <message>
            <source>{provider} refused access: the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} hat den Zugriff verweigert: Der API-Schlüssel darf dieses Modell oder diesen Endpunkt möglicherweise nicht verwenden.</translation>
        </message>
        <message>
            <source>{provider} refused access (HTTP {status}): the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} hat den Zugriff verweigert (HTTP {status}): Der API-Schlüssel darf dieses Modell oder diesen Endpunkt möglicherweise nicht verwenden.</translation>
        </message>
        <message>
            <source>{provider} did not find the address asked for. Check the base URL.</source>
            <translation>{provider} hat die angefragte Adresse nicht gefunden. Prüfen Sie die Basis-URL.</translation>
        </message>
        <message>
            <source>{provider} does not know this model. Choose another model or check its name.</source>
            <translation>{provider} kennt dieses Modell nicht. Wählen Sie ein anderes Modell oder prüfen Sie seinen Namen.</translation>
        </message>
        <message>
            <source>{provider} does not know the model {model}. Choose another model or check its name.</source>
            <translation>{provider} kennt das Modell {model} nicht. Wählen Sie ein anderes Modell oder prüfen Sie seinen Namen.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in a moment.</source>
            <translation>{provider} begrenzt die Anfragen (zu viele, zu schnell). Versuchen Sie es gleich noch einmal.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in {retry_after} s.</source>
            <translation>{provider} begrenzt die Anfragen (zu viele, zu schnell). Versuchen Sie es in {retry_after} s noch einmal.</translation>
        </message>
        <message>
            <source>{provider} says the account's quota or credit is used up. Check the plan or billing.</source>
            <translation>{provider} meldet, dass das Kontingent oder Guthaben des Kontos aufgebraucht ist. Prüfen Sie Tarif oder Abrechnung.</translation>
        </message>
        <message>
            <source>The conversation is too long for this model's context window. Start a new chat, or delete earlier messages.</source>
            <translation>Die Unterhaltung ist zu lang für das Kontextfenster dieses Modells. Beginnen Sie einen neuen Chat oder löschen Sie frühere Nachrichten.</translation>
        </message>
        <message>
            <source>{provider} refused the request.</source>
            <translation>{provider} hat die Anfrage abgelehnt.</translation>
        </message>
        <message>
            <source>{provider} refused the request (HTTP {status}).</source>
            <translation>{provider} hat die Anfrage abgelehnt (HTTP {status}).</translation>
        </message>
        <message>
            <source>{provider} had a server error. Try again later.</source>
            <translation>Bei {provider} ist ein Serverfehler aufgetreten. Versuchen Sie es später noch einmal.</translation>
        </message>
        <message>
            <source>{provider} had a server error (HTTP {status}). Try again later.</source>
            <translation>Bei {provider} ist ein Serverfehler aufgetreten (HTTP {status}). Versuchen Sie es später noch einmal.</translation>
        </message>
        <message>
            <source>Could not connect to {provider}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>Keine Verbindung zu {provider}. Prüfen Sie Basis-URL, Netzwerk und Proxy und ob der Server läuft.</translation>
        </message>
        <message>
            <source>Could not connect to {provider} at {url}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>Keine Verbindung zu {provider} unter {url}. Prüfen Sie Basis-URL, Netzwerk und Proxy und ob der Server läuft.</translation>
        </message>
        <message>
            <source>{provider} did not answer in time.</source>
            <translation>{provider} hat nicht rechtzeitig geantwortet.</translation>
        </message>
        <message>
            <source>The connection to {provider} broke before the answer was complete.</source>
            <translation>Die Verbindung zu {provider} ist abgebrochen, bevor die Antwort vollständig war.</translation>
        </message>
        <message>
            <source>{provider} sent an answer that could not be read. Check the base URL.</source>
            <translation>{provider} hat eine Antwort gesendet, die nicht gelesen werden konnte. Prüfen Sie die Basis-URL.</translation>
        </message>
        <message>
            <source>{provider} sent a reply larger than the limit; it was not read.</source>
            <translation>{provider} hat eine Antwort über der Größenbegrenzung gesendet; sie wurde nicht gelesen.</translation>
        </message>
        <message>
            <source>The base URL of {provider} cannot be used. Check it in Providers.</source>
            <translation>Die Basis-URL von {provider} kann nicht verwendet werden. Prüfen Sie sie unter „Anbieter“.</translation>
        </message>
        <message>
            <source>{provider} reported an error.</source>
            <translation>{provider} hat einen Fehler gemeldet.</translation>
        </message>
        <message>
            <source>Choose a model for {provider} first.</source>
            <translation>Wählen Sie zuerst ein Modell für {provider}.</translation>
        </message>
        <message>
            <source>{model} cannot see images. Pick a vision model, or turn on vision for it in Providers if you know it supports images.</source>
            <translation>{model} kann keine Bilder sehen. Wählen Sie ein Modell mit Bildverständnis oder schalten Sie es unter „Anbieter“ ein, wenn Sie wissen, dass es Bilder unterstützt.</translation>
        </message>
        <message>
            <source>This chat is still answering; stop it first.</source>
            <translation>Dieser Chat antwortet noch; stoppen Sie ihn zuerst.</translation>
        </message>
        <message>
            <source>Research needs something to search: choose a search service (SearXNG, Brave or Tavily) in Settings, or add a knowledge base to the chat.</source>
            <translation>Eine Recherche braucht etwas zum Durchsuchen: Wählen Sie in den Einstellungen einen Suchdienst (SearXNG, Brave oder Tavily) oder fügen Sie dem Chat eine Wissensdatenbank hinzu.</translation>
        </message>
        <message>
            <source>That message is already gone.</source>
            <translation>Diese Nachricht gibt es nicht mehr.</translation>
        </message>
        <message>
            <source>That chat is gone.</source>
            <translation>Diesen Chat gibt es nicht mehr.</translation>
        </message>
        <message>
            <source>A memory needs some text.</source>
            <translation>Eine Erinnerung braucht etwas Text.</translation>
        </message>
        <message>
            <source>That memory is gone.</source>
            <translation>Diese Erinnerung gibt es nicht mehr.</translation>
        </message>
        <message>
            <source>Comparing models is not available in a temporary chat.</source>
            <translation>Modelle vergleichen ist in einem temporären Chat nicht möglich.</translation>
        </message>
        <message>
            <source>Something unexpected went wrong.</source>
            <translation>Etwas Unerwartetes ist schiefgegangen.</translation>
        </message>
        <message>
            <source>A project needs a name.</source>
            <translation>Ein Projekt braucht einen Namen.</translation>
        </message>
        <message>
            <source>There is already a project named {name}.</source>
            <translation>Es gibt bereits ein Projekt namens {name}.</translation>
        </message>
        <message>
            <source>There is no project named {name}.</source>
            <translation>Es gibt kein Projekt namens {name}.</translation>
        </message>
        <message>
            <source>The file {file} does not exist.</source>
            <translation>Die Datei {file} existiert nicht.</translation>
        </message>
        <message>
            <source>{file} could not be added to the project.</source>
            <translation>{file} konnte nicht zum Projekt hinzugefügt werden.</translation>
        </message>
        <message>
            <source>The workspace {folder} is not a folder.</source>
            <translation>Der Arbeitsordner {folder} ist kein Ordner.</translation>
        </message>
        <message>
            <source>{sentence} Details: {detail}</source>
            <translation>{sentence} Details: {detail}</translation>
        </message>
        <message>
            <source>The provider</source>
            <translation>Der Anbieter</translation>
        </message>
        <message>
            <source>The data folder {folder} does not exist.</source>
            <translation>Der Datenordner {folder} existiert nicht.</translation>
        </message>
        <message>
            <source>The data folder {folder} holds no Assista database.</source>
            <translation>Der Datenordner {folder} enthält keine Assista-Datenbank.</translation>
        </message>
        <message>
            <source>The data folder {folder} cannot be written.</source>
            <translation>In den Datenordner {folder} kann nicht geschrieben werden.</translation>
        </message>
        <message>
            <source>{file} cannot be used.</source>
            <translation>{file} kann nicht verwendet werden.</translation>
        </message>
        <message>
            <source>The data location {folder} exists but is not a folder.</source>
            <translation>Der Datenort {folder} existiert, ist aber kein Ordner.</translation>
        </message>
        <message>
            <source>{flag} needs a folder, for example {example}.</source>
            <translation>{flag} braucht einen Ordner, zum Beispiel {example}.</translation>
        </message>
        <message>
            <source>The database is closed.</source>
            <translation>Die Datenbank ist geschlossen.</translation>
        </message>
        <message>
            <source>The database {path} was written by a newer version of Assista (schema {schema}; this version knows up to {known}). Update Assista, or start it with another data folder. The database was not modified.</source>
            <translation>Die Datenbank {path} wurde von einer neueren Version von Assista geschrieben (Schema {schema}; diese Version kennt bis {known}). Aktualisieren Sie Assista oder starten Sie es mit einem anderen Datenordner. Die Datenbank wurde nicht verändert.</translation>
        </message>
        <message>
            <source>The database {path} needs an upgrade (schema {schema} to {known}) and cannot be opened read-only.</source>
            <translation>Die Datenbank {path} muss aktualisiert werden (Schema {schema} auf {known}) und kann nicht schreibgeschützt geöffnet werden.</translation>
        </message>
        <message>
            <source>The database {path} is damaged.</source>
            <translation>Die Datenbank {path} ist beschädigt.</translation>
        </message>
        <message>
            <source>The database {path} is damaged. Restart Assista to recover it.</source>
            <translation>Die Datenbank {path} ist beschädigt. Starten Sie Assista neu, um sie wiederherzustellen.</translation>
        </message>
        <message>
            <source>The database {path} cannot be used. It may be damaged or not an Assista database.</source>
            <translation>Die Datenbank {path} kann nicht verwendet werden. Sie ist vielleicht beschädigt oder keine Assista-Datenbank.</translation>
        </message>
        <message>
            <source>The database {path} is damaged and could not be moved aside; move it away yourself and start Assista again.</source>
            <translation>Die Datenbank {path} ist beschädigt und konnte nicht beiseitegelegt werden; verschieben Sie sie selbst und starten Sie Assista erneut.</translation>
        </message>
        <message>
            <source>Cannot open the database {path}.</source>
            <translation>Die Datenbank {path} kann nicht geöffnet werden.</translation>
        </message>
        <message>
            <source>The database {path} is open read-only (its folder cannot be written); this change was not saved.</source>
            <translation>Die Datenbank {path} ist schreibgeschützt geöffnet (ihr Ordner ist nicht beschreibbar); diese Änderung wurde nicht gespeichert.</translation>
        </message>
        <message>
            <source>The database {path} cannot be written.</source>
            <translation>In die Datenbank {path} kann nicht geschrieben werden.</translation>
        </message>
        <message>
            <source>The disk holding the database {path} is full.</source>
            <translation>Der Datenträger mit der Datenbank {path} ist voll.</translation>
        </message>
        <message>
            <source>The database is busy or unavailable.</source>
            <translation>Die Datenbank ist belegt oder nicht verfügbar.</translation>
        </message>
        <message>
            <source>The database {path} could not be read or written.</source>
            <translation>Die Datenbank {path} konnte nicht gelesen oder geschrieben werden.</translation>
        </message>
        <message>
            <source>Cannot back up the database {path} before upgrading it. The database was not modified; free some disk space and try again.</source>
            <translation>Die Datenbank {path} kann vor der Aktualisierung nicht gesichert werden. Die Datenbank wurde nicht verändert; geben Sie Speicherplatz frei und versuchen Sie es erneut.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was left at version {version}.</source>
            <translation>Die Aktualisierung der Datenbank {path} (Migration {migration}) ist fehlgeschlagen. Die Datenbank blieb auf Version {version}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was restored as it was (version {version}); a copy is kept in {backup}.</source>
            <translation>Die Aktualisierung der Datenbank {path} (Migration {migration}) ist fehlgeschlagen. Die Datenbank wurde wiederhergestellt (Version {version}); eine Kopie liegt in {backup}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed, and restoring the backup also failed; your data is safe in {backup}.</source>
            <translation>Die Aktualisierung der Datenbank {path} (Migration {migration}) ist fehlgeschlagen, und auch die Wiederherstellung der Sicherung schlug fehl; Ihre Daten sind in {backup} sicher.</translation>
        </message>
        <message>
            <source>After the upgrade, some records of the database point to records that do not exist.</source>
            <translation>Nach der Aktualisierung verweisen einige Einträge der Datenbank auf Einträge, die es nicht gibt.</translation>
        </message>
        <message>
            <source>A step of the database upgrade failed.</source>
            <translation>Ein Schritt der Datenbankaktualisierung ist fehlgeschlagen.</translation>
        </message>
        <message>
            <source>Cannot open the request inspector's database {path}.</source>
            <translation>Die Datenbank des Anfrage-Inspektors {path} kann nicht geöffnet werden.</translation>
        </message>
        <message>
            <source>The key file {file} cannot be read. Fix or delete it and enter the API keys again.</source>
            <translation>Die Schlüsseldatei {file} kann nicht gelesen werden. Reparieren oder löschen Sie sie und geben Sie die API-Schlüssel erneut ein.</translation>
        </message>
        <message>
            <source>The key file {file} has an unexpected format.</source>
            <translation>Die Schlüsseldatei {file} hat ein unerwartetes Format.</translation>
        </message>
        <message>
            <source>Cannot write the key file {file}.</source>
            <translation>Die Schlüsseldatei {file} kann nicht geschrieben werden.</translation>
        </message>
        <message>
            <source>The setting {key} cannot be stored.</source>
            <translation>Die Einstellung {key} kann nicht gespeichert werden.</translation>
        </message>
        <message>
            <source>The search failed.</source>
            <translation>Die Suche ist fehlgeschlagen.</translation>
        </message>
        <message>
            <source>The answer could not be saved.</source>
            <translation>Die Antwort konnte nicht gespeichert werden.</translation>
        </message>
        <message>
            <source>{count} messages could not be saved.</source>
            <translation>{count} Nachrichten konnten nicht gespeichert werden.</translation>
        </message>
        <message>
            <source>The message is empty.</source>
            <translation>Die Nachricht ist leer.</translation>
        </message>
        <message>
            <source>That message already exists.</source>
            <translation>Diese Nachricht existiert bereits.</translation>
        </message>
        <message>
            <source>That message is not in this chat.</source>
            <translation>Diese Nachricht ist nicht in diesem Chat.</translation>
        </message>
        <message>
            <source>The message could not be saved: it belongs to another chat.</source>
            <translation>Die Nachricht konnte nicht gespeichert werden: Sie gehört zu einem anderen Chat.</translation>
        </message>
        <message>
            <source>The message could not be saved: the message it follows is not in this chat.</source>
            <translation>Die Nachricht konnte nicht gespeichert werden: Die Nachricht, auf die sie folgt, ist nicht in diesem Chat.</translation>
        </message>
        <message>
            <source>That message is not on the chat's shown branch.</source>
            <translation>Diese Nachricht ist nicht auf dem angezeigten Zweig des Chats.</translation>
        </message>
        <message>
            <source>There is no question before this message to ask again.</source>
            <translation>Vor dieser Nachricht gibt es keine Frage, die erneut gestellt werden kann.</translation>
        </message>
        <message>
            <source>A chat with id {chat} already exists.</source>
            <translation>Ein Chat mit der ID {chat} existiert bereits.</translation>
        </message>
        <message>
            <source>The chat could not be locked for its answer.</source>
            <translation>Der Chat konnte für seine Antwort nicht gesperrt werden.</translation>
        </message>
        <message>
            <source>Nothing to undo: no file written by the assistant is waiting to be undone.</source>
            <translation>Nichts rückgängig zu machen: Keine vom Assistenten geschriebene Datei wartet darauf, rückgängig gemacht zu werden.</translation>
        </message>
        <message>
            <source>This record has no request to replay (recorded by an older version).</source>
            <translation>Dieser Eintrag enthält keine Anfrage zum Wiederholen (von einer älteren Version aufgezeichnet).</translation>
        </message>
        <message>
            <source>Compare {minimum} to {maximum} models at once ({given} given).</source>
            <translation>Vergleichen Sie {minimum} bis {maximum} Modelle auf einmal ({given} angegeben).</translation>
        </message>
        <message>
            <source>An assistant needs a name.</source>
            <translation>Ein Assistent braucht einen Namen.</translation>
        </message>
        <message>
            <source>The temperature must be between 0 and 2.</source>
            <translation>Die Temperatur muss zwischen 0 und 2 liegen.</translation>
        </message>
        <message>
            <source>The assistant could not be saved.</source>
            <translation>Der Assistent konnte nicht gespeichert werden.</translation>
        </message>
        <message>
            <source>That assistant no longer exists.</source>
            <translation>Diesen Assistenten gibt es nicht mehr.</translation>
        </message>
        <message>
            <source>The project could not be saved.</source>
            <translation>Das Projekt konnte nicht gespeichert werden.</translation>
        </message>
        <message>
            <source>That project no longer exists.</source>
            <translation>Dieses Projekt gibt es nicht mehr.</translation>
        </message>
        <message>
            <source>Several memories have ids starting with {id}; give more of the id.</source>
            <translation>Mehrere Erinnerungen haben IDs, die mit {id} beginnen; geben Sie mehr von der ID an.</translation>
        </message>
        <message>
            <source>The system speech failed.</source>
            <translation>Die Sprachausgabe des Systems ist fehlgeschlagen.</translation>
        </message>
        <message>
            <source>This is not an Assista export file.</source>
            <translation>Dies ist keine Assista-Exportdatei.</translation>
        </message>
        <message>
            <source>This export has format version {version}, which this version of Assista cannot read; update Assista to import it.</source>
            <translation>Dieser Export hat die Formatversion {version}, die diese Version von Assista nicht lesen kann; aktualisieren Sie Assista, um ihn zu importieren.</translation>
        </message>
        <message>
            <source>A chat in the export is not readable.</source>
            <translation>Ein Chat im Export ist nicht lesbar.</translation>
        </message>
        <message>
            <source>The chat {chat} in the export is not readable.</source>
            <translation>Der Chat {chat} im Export ist nicht lesbar.</translation>
        </message>
        <message>
            <source>Some messages of the chat {chat} already exist in another chat.</source>
            <translation>Einige Nachrichten des Chats {chat} existieren bereits in einem anderen Chat.</translation>
        </message>
        <message>
            <source>The memories in the export are not readable.</source>
            <translation>Die Erinnerungen im Export sind nicht lesbar.</translation>
        </message>
        <message>
            <source>A project in the export is not readable.</source>
            <translation>Ein Projekt im Export ist nicht lesbar.</translation>
        </message>
        <message>
            <source>{file} holds more than {limit} MB of chats, more than Assista imports at once; split the export or import the chats in parts.</source>
            <translation>{file} enthält mehr als {limit} MB an Chats, mehr als Assista auf einmal importiert; teilen Sie den Export auf oder importieren Sie die Chats in Teilen.</translation>
        </message>
        <message>
            <source>{file} is not a file (a folder, a device or a pipe); import reads an export file.</source>
            <translation>{file} ist keine Datei (ein Ordner, ein Gerät oder eine Pipe); der Import liest eine Exportdatei.</translation>
        </message>
        <message>
            <source>{file} is a damaged zip file.</source>
            <translation>{file} ist eine beschädigte ZIP-Datei.</translation>
        </message>
        <message>
            <source>{file} is not a JSON file.</source>
            <translation>{file} ist keine JSON-Datei.</translation>
        </message>
        <message>
            <source>{file} has no conversations.json inside.</source>
            <translation>{file} enthält keine conversations.json.</translation>
        </message>
        <message>
            <source>This file is neither an Assista export nor a ChatGPT conversations.json.</source>
            <translation>Diese Datei ist weder ein Assista-Export noch eine ChatGPT-conversations.json.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read: a conversation in it has fields of the wrong type; nothing was imported.</source>
            <translation>Der ChatGPT-Export konnte nicht gelesen werden: Eine Unterhaltung darin hat Felder des falschen Typs; nichts wurde importiert.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read.</source>
            <translation>Der ChatGPT-Export konnte nicht gelesen werden.</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Fügen Sie einen Anbieter hinzu, um zu chatten.</translation>
        </message>
        <message>
            <source>{provider} needs an API key: add one in Providers.</source>
            <translation>{provider} braucht einen API-Schlüssel: Fügen Sie einen unter „Anbieter“ hinzu.</translation>
        </message>
        <message>
            <source>{provider} uses an unsupported kind of provider ({kind}).</source>
            <translation>{provider} verwendet eine nicht unterstützte Art von Anbieter ({kind}).</translation>
        </message>
        <message>
            <source>{provider}: the option {option} is not valid.</source>
            <translation>{provider}: Die Option {option} ist ungültig.</translation>
        </message>
        <message>
            <source>Unknown provider preset {preset} (known: {known}).</source>
            <translation>Unbekannte Anbietervorlage {preset} (bekannt: {known}).</translation>
        </message>
        <message>
            <source>{provider} needs a base URL (for example http://localhost:8080/v1).</source>
            <translation>{provider} braucht eine Basis-URL (zum Beispiel http://localhost:8080/v1).</translation>
        </message>
        <message>
            <source>The header {name} looks like a credential. Enter the API key in the provider's key field instead; it is kept in the system keyring, not in the settings.</source>
            <translation>Der Header {name} sieht wie ein Zugangsdatum aus. Geben Sie den API-Schlüssel stattdessen im Schlüsselfeld des Anbieters ein; er wird im Schlüsselbund des Systems gespeichert, nicht in den Einstellungen.</translation>
        </message>
        <message>
            <source>Unknown tools: {tools}. Available: {available}.</source>
            <translation>Unbekannte Werkzeuge: {tools}. Verfügbar: {available}.</translation>
        </message>
        <message>
            <source>{provider} has no web search of its own: choose a search service (SearXNG, Brave or Tavily) in Settings, or turn off Search the web.</source>
            <translation>{provider} hat keine eigene Websuche: Wählen Sie in den Einstellungen einen Suchdienst (SearXNG, Brave oder Tavily) oder schalten Sie „Im Web suchen“ aus.</translation>
        </message>
        <message>
            <source>Web search via {service} needs the instance's address (Settings).</source>
            <translation>Die Websuche über {service} braucht die Adresse der Instanz (Einstellungen).</translation>
        </message>
        <message>
            <source>Web search via {service} needs an API key (Settings).</source>
            <translation>Die Websuche über {service} braucht einen API-Schlüssel (Einstellungen).</translation>
        </message>
        <message>
            <source>This model cannot call tools, so it cannot search the web here; pick a model with tools or turn off Search the web.</source>
            <translation>Dieses Modell kann keine Werkzeuge aufrufen und daher hier nicht im Web suchen; wählen Sie ein Modell mit Werkzeugen oder schalten Sie „Im Web suchen“ aus.</translation>
        </message>
        <message>
            <source>Unknown sync target {url}: use {forms}.</source>
            <translation>Unbekanntes Synchronisationsziel {url}: Verwenden Sie {forms}.</translation>
        </message>
        <message>
            <source>Set the sync passphrase in Settings → Sync.</source>
            <translation>Legen Sie die Sync-Passphrase unter Einstellungen → Synchronisation fest.</translation>
        </message>
        <message>
            <source>The sync passphrase is empty; set one to encrypt your chats.</source>
            <translation>Die Sync-Passphrase ist leer; legen Sie eine fest, um Ihre Chats zu verschlüsseln.</translation>
        </message>
        <message>
            <source>The sync passphrase is wrong: it does not open the chats already on the target. Nothing was changed.</source>
            <translation>Die Sync-Passphrase ist falsch: Sie öffnet die Chats auf dem Ziel nicht. Nichts wurde geändert.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged.</source>
            <translation>{file} auf dem Synchronisationsziel ist beschädigt.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged or was altered (it fails authentication).</source>
            <translation>{file} auf dem Synchronisationsziel ist beschädigt oder wurde verändert (die Authentifizierung schlägt fehl).</translation>
        </message>
        <message>
            <source>The sync target was set up by a newer version of Assista; update Assista.</source>
            <translation>Das Synchronisationsziel wurde von einer neueren Version von Assista eingerichtet; aktualisieren Sie Assista.</translation>
        </message>
        <message>
            <source>{file} was written by a newer version of Assista; update Assista to sync.</source>
            <translation>{file} wurde von einer neueren Version von Assista geschrieben; aktualisieren Sie Assista, um zu synchronisieren.</translation>
        </message>
        <message>
            <source>Another sync of this data folder is running; this one was skipped.</source>
            <translation>Eine andere Synchronisation dieses Datenordners läuft; diese wurde übersprungen.</translation>
        </message>
        <message>
            <source>A change on this device is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Eine Änderung auf diesem Gerät ist {size} groß, mehr als das Synchronisationsziel {target} in einem Upload annimmt ({limit}); sie bleibt auf diesem Gerät. Löschen Sie sie oder erhöhen Sie das Upload-Limit des Servers, um wieder zu synchronisieren.</translation>
        </message>
        <message>
            <source>A message in the chat {chat} is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Eine Nachricht im Chat {chat} ist {size} groß, mehr als das Synchronisationsziel {target} in einem Upload annimmt ({limit}); sie bleibt auf diesem Gerät. Löschen Sie sie oder erhöhen Sie das Upload-Limit des Servers, um wieder zu synchronisieren.</translation>
        </message>
        <message>
            <source>The sync target {target} does not hold {count} of the files it accepted: the server lost them. Nothing is lost here; the next sync sends them again.</source>
            <translation>Das Synchronisationsziel {target} hat {count} der angenommenen Dateien nicht: Der Server hat sie verloren. Hier geht nichts verloren; die nächste Synchronisation sendet sie erneut.</translation>
        </message>
        <message>
            <source>{file} disappeared from the sync target during the sync; nothing was changed here, the next sync will read it.</source>
            <translation>{file} ist während der Synchronisation vom Synchronisationsziel verschwunden; hier wurde nichts geändert, die nächste Synchronisation liest sie.</translation>
        </message>
        <message>
            <source>The sync target {target} lost {file}.</source>
            <translation>Das Synchronisationsziel {target} hat {file} verloren.</translation>
        </message>
        <message>
            <source>The sync target {target} refused the credentials (HTTP {status}); check the user name and the password. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat die Zugangsdaten abgelehnt (HTTP {status}); prüfen Sie Benutzername und Passwort. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} refused access (HTTP {status}); check the credentials and the path. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat den Zugriff verweigert (HTTP {status}); prüfen Sie die Zugangsdaten und den Pfad. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} has no such folder or bucket (HTTP {status}). Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat keinen solchen Ordner oder Bucket (HTTP {status}). Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} refused a file as too large (HTTP {status}). Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat eine Datei als zu groß abgelehnt (HTTP {status}). Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} is out of space (HTTP {status}); free some space on it. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat keinen Speicherplatz mehr (HTTP {status}); geben Sie dort Platz frei. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} failed (HTTP {status}); try again later. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} ist fehlgeschlagen (HTTP {status}); versuchen Sie es später erneut. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} answered HTTP {status}. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat mit HTTP {status} geantwortet. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} sent more than {limit}, so it was not read (the server or a proxy in between is broken). Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat mehr als {limit} gesendet und wurde daher nicht gelesen (der Server oder ein Proxy dazwischen ist defekt). Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The sync target {target} did not answer in time; your data here was not changed and the next sync will try again.</source>
            <translation>Das Synchronisationsziel {target} hat nicht rechtzeitig geantwortet; Ihre Daten hier wurden nicht geändert, die nächste Synchronisation versucht es erneut.</translation>
        </message>
        <message>
            <source>The sync target {target} cannot be reached; your data here was not changed and the next sync will try again.</source>
            <translation>Das Synchronisationsziel {target} ist nicht erreichbar; Ihre Daten hier wurden nicht geändert, die nächste Synchronisation versucht es erneut.</translation>
        </message>
        <message>
            <source>The sync target {target} dropped the connection; your data here was not changed and the next sync will try again.</source>
            <translation>Das Synchronisationsziel {target} hat die Verbindung getrennt; Ihre Daten hier wurden nicht geändert, die nächste Synchronisation versucht es erneut.</translation>
        </message>
        <message>
            <source>The sync target {target} failed; your data here was not changed and the next sync will try again.</source>
            <translation>Das Synchronisationsziel {target} ist fehlgeschlagen; Ihre Daten hier wurden nicht geändert, die nächste Synchronisation versucht es erneut.</translation>
        </message>
        <message>
            <source>The sync folder {target} failed. Nothing was changed here.</source>
            <translation>Der Synchronisationsordner {target} ist fehlgeschlagen. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>A file URL names a folder on this machine by its full path: file:///path ({url}).</source>
            <translation>Eine file-URL benennt einen Ordner auf diesem Rechner mit seinem vollständigen Pfad: file:///path ({url}).</translation>
        </message>
        <message>
            <source>{file} in the sync folder {target} is larger than {limit}: not a file Assista wrote. Nothing was changed here.</source>
            <translation>{file} im Synchronisationsordner {target} ist größer als {limit}: keine Datei, die Assista geschrieben hat. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The S3 URL {url} has no bucket: s3://bucket/prefix.</source>
            <translation>Die S3-URL {url} hat keinen Bucket: s3://bucket/prefix.</translation>
        </message>
        <message>
            <source>S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.</source>
            <translation>Die S3-Synchronisation braucht gesetzte AWS_ACCESS_KEY_ID und AWS_SECRET_ACCESS_KEY.</translation>
        </message>
        <message>
            <source>The sync target {target} sent a list of files that cannot be read. Nothing was changed here.</source>
            <translation>Das Synchronisationsziel {target} hat eine Dateiliste gesendet, die nicht gelesen werden kann. Hier wurde nichts geändert.</translation>
        </message>
        <message>
            <source>The WebDAV URL {url} has no host.</source>
            <translation>Die WebDAV-URL {url} hat keinen Host.</translation>
        </message>
        <message>
            <source>Put the WebDAV password in {variable}, not in the URL.</source>
            <translation>Legen Sie das WebDAV-Passwort in {variable} ab, nicht in der URL.</translation>
        </message>
        <message>
            <source>Cannot read {file}.</source>
            <translation>{file} kann nicht gelesen werden.</translation>
        </message>
        <message>
            <source>{file} is not a file.</source>
            <translation>{file} ist keine Datei.</translation>
        </message>
        <message>
            <source>{file} is empty.</source>
            <translation>{file} ist leer.</translation>
        </message>
        <message>
            <source>{file} is not UTF-8 text.</source>
            <translation>{file} ist kein UTF-8-Text.</translation>
        </message>
        <message>
            <source>{file} is not valid CSV.</source>
            <translation>{file} ist kein gültiges CSV.</translation>
        </message>
        <message>
            <source>{file} is not a PDF (its content does not start like one: a damaged download or another kind of file).</source>
            <translation>{file} ist kein PDF (der Inhalt beginnt nicht wie eines: ein beschädigter Download oder eine andere Dateiart).</translation>
        </message>
        <message>
            <source>{file} is password-protected; open it with its password and save an unprotected copy to attach it.</source>
            <translation>{file} ist passwortgeschützt; öffnen Sie es mit dem Passwort und speichern Sie eine ungeschützte Kopie, um sie anzuhängen.</translation>
        </message>
        <message>
            <source>{file} is too large to attach ({size} MB; the limit is {limit} MB).</source>
            <translation>{file} ist zu groß zum Anhängen ({size} MB; die Grenze ist {limit} MB).</translation>
        </message>
        <message>
            <source>{file} is too large to read ({size}; the limit is {limit} MB).</source>
            <translation>{file} ist zu groß zum Lesen ({size}; die Grenze ist {limit} MB).</translation>
        </message>
        <message>
            <source>{file} unpacks to more than {limit} MB; it is not read.</source>
            <translation>{file} wird entpackt größer als {limit} MB; es wird nicht gelesen.</translation>
        </message>
        <message>
            <source>{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code).</source>
            <translation>{file} ist keine Textdatei und kein unterstütztes Dokument (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, Quellcode).</translation>
        </message>
        <message>
            <source>{file} has no text to read.</source>
            <translation>{file} enthält keinen lesbaren Text.</translation>
        </message>
        <message>
            <source>{file} has no text to read (scanned pages without a text layer?).</source>
            <translation>{file} enthält keinen lesbaren Text (gescannte Seiten ohne Textebene?).</translation>
        </message>
        <message>
            <source>{file} is damaged.</source>
            <translation>{file} ist beschädigt.</translation>
        </message>
        <message>
            <source>{file} is damaged or not a real {kind} file.</source>
            <translation>{file} ist beschädigt oder keine echte {kind}-Datei.</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>Eine Wissensdatenbank braucht einen Namen.</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Es gibt bereits eine Wissensdatenbank namens {name}.</translation>
        </message>
        <message>
            <source>There is no knowledge base named {name}.</source>
            <translation>Es gibt keine Wissensdatenbank namens {name}.</translation>
        </message>
        <message>
            <source>No such file or folder: {paths}.</source>
            <translation>Keine solche Datei und kein solcher Ordner: {paths}.</translation>
        </message>
        <message>
            <source>{file} is too large to index.</source>
            <translation>{file} ist zu groß zum Indizieren.</translation>
        </message>
        <message>
            <source>{file} is a link to nothing.</source>
            <translation>{file} ist ein Link ins Leere.</translation>
        </message>
        <message>
            <source>{file} is a link out of the folder (links are followed only inside it).</source>
            <translation>{file} ist ein Link aus dem Ordner heraus (Links werden nur innerhalb des Ordners verfolgt).</translation>
        </message>
        <message>
            <source>There is no embedding API {kind}.</source>
            <translation>Es gibt keine Embedding-API {kind}.</translation>
        </message>
        <message>
            <source>Providers of the kind {kind} cannot make embeddings.</source>
            <translation>Anbieter der Art {kind} können keine Embeddings erstellen.</translation>
        </message>
        <message>
            <source>The embedding request failed.</source>
            <translation>Die Embedding-Anfrage ist fehlgeschlagen.</translation>
        </message>
        <message>
            <source>The embedding model {model} at {url} cannot be used; nothing was changed.</source>
            <translation>Das Embedding-Modell {model} unter {url} kann nicht verwendet werden; nichts wurde geändert.</translation>
        </message>
        <message>
            <source>No MCP servers are running.</source>
            <translation>Es laufen keine MCP-Server.</translation>
        </message>
        <message>
            <source>There is no MCP server named {name}.</source>
            <translation>Es gibt keinen MCP-Server namens {name}.</translation>
        </message>
        <message>
            <source>There is already an MCP server named {name}.</source>
            <translation>Es gibt bereits einen MCP-Server namens {name}.</translation>
        </message>
        <message>
            <source>The prompt {prompt} needs {names}.</source>
            <translation>Der Prompt {prompt} braucht {names}.</translation>
        </message>
        <message>
            <source>These values are required: {names}.</source>
            <translation>Diese Werte sind erforderlich: {names}.</translation>
        </message>
        <message>
            <source>The MCP registry could not be read and there is no saved copy yet.</source>
            <translation>Das MCP-Verzeichnis konnte nicht gelesen werden, und es gibt noch keine gespeicherte Kopie.</translation>
        </message>
        <message>
            <source>The MCP configuration is not valid JSON (line {line}).</source>
            <translation>Die MCP-Konfiguration ist kein gültiges JSON (Zeile {line}).</translation>
        </message>
        <message>
            <source>Cannot read the MCP configuration {file}.</source>
            <translation>Die MCP-Konfiguration {file} kann nicht gelesen werden.</translation>
        </message>
        <message>
            <source>The MCP configuration must be a JSON object with an mcpServers key.</source>
            <translation>Die MCP-Konfiguration muss ein JSON-Objekt mit einem Schlüssel mcpServers sein.</translation>
        </message>
        <message>
            <source>The MCP configuration holds a single server without a name: put it under mcpServers, with its name as the key.</source>
            <translation>Die MCP-Konfiguration enthält einen einzelnen Server ohne Namen: Legen Sie ihn unter mcpServers ab, mit seinem Namen als Schlüssel.</translation>
        </message>
        <message>
            <source>mcpServers must map server names to their settings.</source>
            <translation>mcpServers muss Servernamen ihren Einstellungen zuordnen.</translation>
        </message>
        <message>
            <source>The MCP configuration lists no servers.</source>
            <translation>Die MCP-Konfiguration listet keine Server auf.</translation>
        </message>
        <message>
            <source>MCP server {server}: its settings must be a JSON object.</source>
            <translation>MCP-Server {server}: Seine Einstellungen müssen ein JSON-Objekt sein.</translation>
        </message>
        <message>
            <source>MCP server {server}: {key} must be an object of strings.</source>
            <translation>MCP-Server {server}: {key} muss ein Objekt aus Zeichenketten sein.</translation>
        </message>
        <message>
            <source>MCP server {server}: unknown transport {transport}.</source>
            <translation>MCP-Server {server}: unbekannter Transport {transport}.</translation>
        </message>
        <message>
            <source>The settings of MCP server {server} are not valid.</source>
            <translation>Die Einstellungen des MCP-Servers {server} sind ungültig.</translation>
        </message>
    </context>
    <context>
        <name>ExchangeView</name>
        <message>
            <source>Find in the request</source>
            <translation>In der Anfrage suchen</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Anfrage</translation>
        </message>
        <message>
            <source>Find in the response</source>
            <translation>In der Antwort suchen</translation>
        </message>
        <message>
            <source>Response</source>
            <translation>Antwort</translation>
        </message>
        <message>
            <source>Find in this event</source>
            <translation>In diesem Ereignis suchen</translation>
        </message>
        <message>
            <source>Event</source>
            <translation>Ereignis</translation>
        </message>
        <message>
            <source>Events (%1)</source>
            <translation>Ereignisse (%1)</translation>
        </message>
        <message>
            <source>Raw bytes (%1)</source>
            <translation>Rohbytes (%1)</translation>
        </message>
        <message>
            <source>Timings</source>
            <translation>Zeiten</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Wiedergabe</translation>
        </message>
        <message>
            <source>Stream events</source>
            <translation>Stream-Ereignisse</translation>
        </message>
        <message>
            <source>Arrived</source>
            <translation>Eingetroffen</translation>
        </message>
        <message>
            <source>Bytes</source>
            <translation>Bytes</translation>
        </message>
        <message>
            <source>Raw bytes received</source>
            <translation>Empfangene Rohbytes</translation>
        </message>
        <message>
            <source>Find in these bytes</source>
            <translation>In diesen Bytes suchen</translation>
        </message>
        <message>
            <source>Raw bytes</source>
            <translation>Rohbytes</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Daten</translation>
        </message>
        <message>
            <source>%1 (counted from the events)</source>
            <translation>%1 (aus den Ereignissen gezählt)</translation>
        </message>
        <message>
            <source>Time to headers</source>
            <translation>Zeit bis zu den Headern</translation>
        </message>
        <message>
            <source>Time to first token</source>
            <translation>Zeit bis zum ersten Token</translation>
        </message>
        <message>
            <source>Time to last token</source>
            <translation>Zeit bis zum letzten Token</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>Gesamt</translation>
        </message>
        <message>
            <source>Output tokens</source>
            <translation>Ausgabetokens</translation>
        </message>
        <message>
            <source>Tokens per second</source>
            <translation>Tokens pro Sekunde</translation>
        </message>
        <message>
            <source>Retries</source>
            <translation>Wiederholungen</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>Find in this chat</source>
            <translation>In diesem Chat suchen</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>Vorheriger Treffer (Umschalt+Eingabe)</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>Vorheriger Treffer</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>Nächster Treffer (Eingabe)</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>Nächster Treffer</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>Schließen (Esc)</translation>
        </message>
        <message>
            <source>Close the find bar</source>
            <translation>Suchleiste schließen</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>Keine Treffer</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n Treffer</numerusform>
                <numerusform>%n Treffer</numerusform>
            </translation>
        </message>
        <message>
            <source>{current} of {total}</source>
            <translation>{current} von {total}</translation>
        </message>
    </context>
    <context>
        <name>FindableText</name>
        <message>
            <source>Find</source>
            <translation>Suchen</translation>
        </message>
        <message numerus="yes">
            <source>%n found</source>
            <translation>
                <numerusform>%n gefunden</numerusform>
                <numerusform>%n gefunden</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>GlobalShortcut</name>
        <message>
            <source>Open the Assista quick-ask window</source>
            <translation>Das Schnellfrage-Fenster von Assista öffnen</translation>
        </message>
        <message>
            <source>Registered with the desktop as {trigger}.</source>
            <translation>Beim Desktop als {trigger} registriert.</translation>
        </message>
        <message>
            <source>Registered: {shortcut} opens quick ask from any application.</source>
            <translation>Registriert: {shortcut} öffnet die Schnellfrage aus jeder Anwendung.</translation>
        </message>
        <message>
            <source>Waiting for the desktop to confirm the shortcut…</source>
            <translation>Warte auf die Bestätigung des Kürzels durch den Desktop…</translation>
        </message>
        <message>
            <source>{shortcut} is taken by another program: choose another combination.</source>
            <translation>{shortcut} wird schon von einem anderen Programm verwendet: Wählen Sie eine andere Kombination.</translation>
        </message>
        <message>
            <source>The desktop did not allow the shortcut. Choose it again, or bind the command “assista quick --selection” in the desktop's keyboard settings.</source>
            <translation>Der Desktop hat das Kürzel nicht erlaubt. Wählen Sie es erneut oder binden Sie den Befehl „assista quick --selection“ in den Tastatureinstellungen des Desktops.</translation>
        </message>
        <message>
            <source>Not available on this desktop: bind the command “assista quick --selection” to a shortcut in the desktop's keyboard settings.</source>
            <translation>Auf diesem Desktop nicht verfügbar: Binden Sie den Befehl „assista quick --selection“ in den Tastatureinstellungen des Desktops an ein Kürzel.</translation>
        </message>
        <message>
            <source>No global shortcut. The command “assista quick --selection” can be bound to one in the desktop's keyboard settings.</source>
            <translation>Kein globales Kürzel. Der Befehl „assista quick --selection“ kann in den Tastatureinstellungen des Desktops an eines gebunden werden.</translation>
        </message>
        <message>
            <source>A global shortcut needs Ctrl, Alt or Meta with the key: on its own the key could not be typed anywhere else.</source>
            <translation>Ein globales Kürzel braucht Strg, Alt oder Meta zur Taste: allein könnte die Taste nirgends sonst mehr getippt werden.</translation>
        </message>
        <message>
            <source>This key cannot be part of a global shortcut: choose a letter, digit, function key, Space or an arrow key.</source>
            <translation>Diese Taste kann nicht Teil eines globalen Kürzels sein: Wählen Sie einen Buchstaben, eine Ziffer, eine Funktionstaste, die Leertaste oder eine Pfeiltaste.</translation>
        </message>
        <message>
            <source>A global shortcut is one key with Ctrl, Alt or Meta, not a sequence of keys.</source>
            <translation>Ein globales Kürzel ist eine Taste mit Strg, Alt oder Meta, keine Tastenfolge.</translation>
        </message>
    </context>
    <context>
        <name>HitDelegate</name>
        <message>
            <source>You</source>
            <translation>Sie</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>Assistent</translation>
        </message>
        <message>
            <source>Tool result</source>
            <translation>Werkzeugergebnis</translation>
        </message>
        <message>
            <source>System</source>
            <translation>System</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>archived</source>
            <translation>archiviert</translation>
        </message>
    </context>
    <context>
        <name>ImportExport</name>
        <message>
            <source>Open a chat to export it (or use Export all chats…).</source>
            <translation>Öffnen Sie einen Chat, um ihn zu exportieren (oder nutzen Sie „Alle Chats exportieren…“).</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>Chat exportieren</translation>
        </message>
        <message>
            <source>Export all chats</source>
            <translation>Alle Chats exportieren</translation>
        </message>
        <message>
            <source>Import chats</source>
            <translation>Chats importieren</translation>
        </message>
        <message>
            <source>all chats</source>
            <translation>alle Chats</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n Chat</numerusform>
                <numerusform>%n Chats</numerusform>
            </translation>
        </message>
        <message>
            <source>Export to {file} failed: {error}</source>
            <translation>Export nach {file} fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>Exported {what} as {format} to {file} ({size} bytes).</source>
            <translation>{what} als {format} nach {file} exportiert ({size} Bytes).</translation>
        </message>
        <message>
            <source>Import of {file} failed: {error}</source>
            <translation>Import von {file} fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>Import finished</source>
            <translation>Import abgeschlossen</translation>
        </message>
    </context>
    <context>
        <name>InspectorPanel</name>
        <message>
            <source>HTTP status: %1</source>
            <translation>HTTP-Status: %1</translation>
        </message>
        <message>
            <source>Retries:</source>
            <translation>Wiederholungen:</translation>
        </message>
        <message>
            <source>  attempt %1 at %2, waited %3 s: %4</source>
            <translation>  Versuch %1 um %2, %3 s gewartet: %4</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Anfrage-Inspektor</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Anfrage</translation>
        </message>
        <message>
            <source>Request %1 of %2: %3 · %4 · HTTP %5</source>
            <translation>Anfrage %1 von %2: %3 · %4 · HTTP %5</translation>
        </message>
        <message>
            <source>Copy as curl</source>
            <translation>Als curl kopieren</translation>
        </message>
        <message>
            <source>The request as a curl command; the key is an environment variable, never the key itself</source>
            <translation>Die Anfrage als curl-Befehl; der Schlüssel steht als Umgebungsvariable darin, nie der Schlüssel selbst</translation>
        </message>
        <message>
            <source>Copy as JSON</source>
            <translation>Als JSON kopieren</translation>
        </message>
        <message>
            <source>Everything recorded for this request, redacted</source>
            <translation>Alles, was für diese Anfrage aufgezeichnet wurde, geschwärzt</translation>
        </message>
        <message>
            <source>%1 · %2 · HTTP %3 · %4</source>
            <translation>%1 · %2 · HTTP %3 · %4</translation>
        </message>
        <message>
            <source>Copied the curl command.</source>
            <translation>curl-Befehl kopiert.</translation>
        </message>
        <message>
            <source>Copied the record as JSON.</source>
            <translation>Eintrag als JSON kopiert.</translation>
        </message>
    </context>
    <context>
        <name>InspectorSettings</name>
        <message>
            <source>Record every request sent to a model</source>
            <translation>Jede an ein Modell gesendete Anfrage aufzeichnen</translation>
        </message>
        <message>
            <source>What was sent (keys and tokens hidden), what came back and the timings, for Inspect on each answer and assista inspect</source>
            <translation>Was gesendet wurde (Schlüssel und Tokens verborgen), was zurückkam und die Zeiten – für „Untersuchen“ an jeder Antwort und assista inspect</translation>
        </message>
        <message>
            <source>Recording</source>
            <translation>Aufzeichnung</translation>
        </message>
        <message>
            <source> days</source>
            <translation> Tage</translation>
        </message>
        <message>
            <source>Keep recorded requests for</source>
            <translation>Aufgezeichnete Anfragen aufbewahren für</translation>
        </message>
        <message>
            <source>Keep for</source>
            <translation>Aufbewahren für</translation>
        </message>
        <message>
            <source> MB</source>
            <translation> MB</translation>
        </message>
        <message>
            <source>Largest size of the recorded requests</source>
            <translation>Maximale Größe der aufgezeichneten Anfragen</translation>
        </message>
        <message>
            <source>At most</source>
            <translation>Höchstens</translation>
        </message>
        <message>
            <source>The oldest requests are deleted first, when the app starts and after each answer. They are kept in inspector.sqlite in the data folder, apart from the chats (not synced).</source>
            <translation>Die ältesten Anfragen werden zuerst gelöscht, beim Start der App und nach jeder Antwort. Sie liegen in inspector.sqlite im Datenordner, getrennt von den Chats (nicht synchronisiert).</translation>
        </message>
        <message>
            <source>Delete all recorded requests</source>
            <translation>Alle aufgezeichneten Anfragen löschen</translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n recorded requests.</source>
            <translation>
                <numerusform>%n aufgezeichnete Anfrage gelöscht.</numerusform>
                <numerusform>%n aufgezeichnete Anfragen gelöscht.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDetail</name>
        <message>
            <source>Folders and files of the knowledge base</source>
            <translation>Ordner und Dateien der Wissensdatenbank</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ordner hinzufügen…</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Dateien hinzufügen…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Stop indexing the selected folder or file</source>
            <translation>Indizierung des gewählten Ordners oder der gewählten Datei beenden</translation>
        </message>
        <message>
            <source>Embedding provider</source>
            <translation>Embedding-Anbieter</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>Embedding-Modell</translation>
        </message>
        <message>
            <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
            <translation>z. B. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</translation>
        </message>
        <message>
            <source>Search it in the open chat</source>
            <translation>Im geöffneten Chat durchsuchen</translation>
        </message>
        <message>
            <source>Assistants…</source>
            <translation>Assistenten…</translation>
        </message>
        <message>
            <source>Every chat with a checked assistant searches this knowledge base</source>
            <translation>Jeder Chat mit einem markierten Assistenten durchsucht diese Wissensdatenbank</translation>
        </message>
        <message>
            <source>Embeddings</source>
            <translation>Embeddings</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Used by</source>
            <translation>Verwendet von</translation>
        </message>
        <message>
            <source>Folders and files</source>
            <translation>Ordner und Dateien</translation>
        </message>
        <message>
            <source>Index now</source>
            <translation>Jetzt indizieren</translation>
        </message>
        <message>
            <source>Indexing progress</source>
            <translation>Fortschritt der Indizierung</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Cancel indexing</source>
            <translation>Indizierung abbrechen</translation>
        </message>
        <message>
            <source>No knowledge base yet</source>
            <translation>Noch keine Wissensdatenbank</translation>
        </message>
        <message>
            <source>Full text only</source>
            <translation>Nur Volltext</translation>
        </message>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n Datei</numerusform>
                <numerusform>%n Dateien</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passages</source>
            <translation>
                <numerusform>%n Abschnitt</numerusform>
                <numerusform>%n Abschnitte</numerusform>
            </translation>
        </message>
        <message>
            <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds} s</source>
            <translation>{added} hinzugefügt, {updated} geändert, {removed} entfernt, {unchanged} unverändert in {seconds} s</translation>
        </message>
        <message numerus="yes">
            <source>%n files could not be read: </source>
            <translation>
                <numerusform>%n Datei konnte nicht gelesen werden: </numerusform>
                <numerusform>%n Dateien konnten nicht gelesen werden: </numerusform>
            </translation>
        </message>
        <message>
            <source>{files}, {chunks}; not indexed yet</source>
            <translation>{files}, {chunks}; noch nicht indiziert</translation>
        </message>
        <message>
            <source>{files}, {chunks}; indexed {when}</source>
            <translation>{files}, {chunks}; indiziert {when}</translation>
        </message>
        <message>
            <source>No assistants yet</source>
            <translation>Noch keine Assistenten</translation>
        </message>
        <message>
            <source>Looking for files…</source>
            <translation>Suche Dateien…</translation>
        </message>
        <message>
            <source>Computing embeddings…</source>
            <translation>Berechne Embeddings…</translation>
        </message>
        <message>
            <source>{done} of {total}: {path}</source>
            <translation>{done} von {total}: {path}</translation>
        </message>
        <message>
            <source>Indexing failed: {error}</source>
            <translation>Indizierung fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>; {n} passages embedded</source>
            <translation>; {n} Abschnitte eingebettet</translation>
        </message>
        <message>
            <source> (cancelled: what was done is kept)</source>
            <translation> (abgebrochen: Erledigtes bleibt erhalten)</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>Ordner hinzufügen</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>Dateien hinzufügen</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDialog</name>
        <message>
            <source>Knowledge</source>
            <translation>Wissen</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Wissensdatenbanken</translation>
        </message>
        <message>
            <source>New…</source>
            <translation>Neu…</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>Umbenennen…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>New knowledge base</source>
            <translation>Neue Wissensdatenbank</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>Name:</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Es gibt bereits eine Wissensdatenbank namens {name}.</translation>
        </message>
        <message>
            <source>Rename knowledge base</source>
            <translation>Wissensdatenbank umbenennen</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>Wissensdatenbank löschen</translation>
        </message>
        <message>
            <source>Delete {name} and its index? Your files are not touched.</source>
            <translation>{name} und ihren Index löschen? Ihre Dateien bleiben unberührt.</translation>
        </message>
    </context>
    <context>
        <name>LanguageChoice</name>
        <message>
            <source>Language</source>
            <translation>Sprache</translation>
        </message>
        <message>
            <source>A new language shows after the app is restarted.</source>
            <translation>Eine neue Sprache erscheint nach einem Neustart der App.</translation>
        </message>
    </context>
    <context>
        <name>Languages</name>
        <message>
            <source>System default</source>
            <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
            <translation>Systemstandard</translation>
        </message>
    </context>
    <context>
        <name>Launch</name>
        <message>
            <source> and </source>
            <translation> und </translation>
        </message>
        <message>
            <source>Found {servers} running on this computer</source>
            <translation>{servers} läuft auf diesem Computer</translation>
        </message>
        <message>
            <source>{app} could not open its data folder:

{error}</source>
            <translation>{app} konnte seinen Datenordner nicht öffnen:

{error}</translation>
        </message>
        <message>
            <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
            <translation>{app} läuft bereits mit den Daten in {folder}. Schließen Sie es zuerst oder starten Sie mit --data-dir.</translation>
        </message>
        <message>
            <source>{app} could not open its data:

{error}</source>
            <translation>{app} konnte seine Daten nicht öffnen:

{error}</translation>
        </message>
    </context>
    <context>
        <name>LocaleFormat</name>
        <message>
            <source>{number}k</source>
            <translation>{number} Tsd.</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Opening…</source>
            <translation>Wird geöffnet…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <extracomment>The menus in order (the skeleton shows them disabled until the real ones replace them)</extracomment>
            <translation>&amp;Datei</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Neuer Chat</translation>
        </message>
        <message>
            <source>New t&amp;emporary chat</source>
            <translation>Neuer t&amp;emporärer Chat</translation>
        </message>
        <message>
            <source>Choose &amp;workspace folder…</source>
            <translation>&amp;Arbeitsordner wählen…</translation>
        </message>
        <message>
            <source>Install &amp;extension…</source>
            <translation>&amp;Erweiterung installieren…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Beenden</translation>
        </message>
        <message>
            <source>&amp;Settings</source>
            <translation>&amp;Einstellungen</translation>
        </message>
        <message>
            <source>P&amp;references…</source>
            <translation>Ein&amp;stellungen…</translation>
        </message>
        <message>
            <source>&amp;Providers…</source>
            <translation>&amp;Anbieter…</translation>
        </message>
        <message>
            <source>Model p&amp;rices…</source>
            <translation>Modell&amp;preise…</translation>
        </message>
        <message>
            <source>&amp;Tools…</source>
            <translation>&amp;Werkzeuge…</translation>
        </message>
        <message>
            <source>&amp;MCP servers…</source>
            <translation>&amp;MCP-Server…</translation>
        </message>
        <message>
            <source>&amp;Knowledge…</source>
            <translation>&amp;Wissen…</translation>
        </message>
        <message>
            <source>S&amp;ync…</source>
            <translation>S&amp;ynchronisierung…</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>&amp;Ansicht</translation>
        </message>
        <message>
            <source>Toggle &amp;tool activity</source>
            <translation>&amp;Werkzeugaktivität ein/aus</translation>
        </message>
        <message>
            <source>Show &amp;chat list</source>
            <translation>&amp;Chatliste anzeigen</translation>
        </message>
        <message>
            <source>Focus &amp;message box</source>
            <translation>&amp;Nachrichtenfeld fokussieren</translation>
        </message>
        <message>
            <source>Go to pending &amp;approval</source>
            <translation>Zur offenen &amp;Zustimmung</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>&amp;Hilfe</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>&amp;Tastenkürzel</translation>
        </message>
        <message>
            <source>Open &amp;log folder</source>
            <translation>&amp;Protokollordner öffnen</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>Ü&amp;ber</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Am Limit der Werkzeugrunden gestoppt</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Gestoppt</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Fügen Sie einen Anbieter hinzu, um zu chatten.</translation>
        </message>
        <message>
            <source>Preferences saved</source>
            <translation>Einstellungen gespeichert</translation>
        </message>
        <message>
            <source>Choose workspace folder</source>
            <translation>Arbeitsordner wählen</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Erweiterung installieren</translation>
        </message>
        <message>
            <source>MCP bundles (*.mcpb *.dxt)</source>
            <translation>MCP-Pakete (*.mcpb *.dxt)</translation>
        </message>
    </context>
    <context>
        <name>McpAttachMenu</name>
        <message>
            <source>Files…</source>
            <translation>Dateien…</translation>
        </message>
        <message>
            <source>From MCP server…</source>
            <translation>Von MCP-Server…</translation>
        </message>
        <message>
            <source>Read again from {0}: the server changed it</source>
            <translation>Erneut von {0} gelesen: Der Server hat es geändert</translation>
        </message>
    </context>
    <context>
        <name>McpCatalogDialog</name>
        <message>
            <source>MCP server catalog</source>
            <translation>MCP-Serverkatalog</translation>
        </message>
        <message>
            <source>Search servers</source>
            <translation>Server suchen</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Aktualisieren</translation>
        </message>
        <message>
            <source>Read the registry again</source>
            <translation>Registry erneut lesen</translation>
        </message>
        <message>
            <source>Servers in the catalog</source>
            <translation>Server im Katalog</translation>
        </message>
        <message>
            <source>How to install</source>
            <translation>Installation</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>Server hinzufügen</translation>
        </message>
        <message>
            <source>Showing the saved copy; reading the registry…</source>
            <translation>Gespeicherte Kopie wird angezeigt; Registry wird gelesen…</translation>
        </message>
        <message>
            <source>Reading the MCP registry…</source>
            <translation>Lese die MCP-Registry…</translation>
        </message>
        <message>
            <source>Offline ({0}): showing the copy saved on {1}.</source>
            <translation>Offline ({0}): Die am {1} gespeicherte Kopie wird angezeigt.</translation>
        </message>
        <message numerus="yes">
            <source>%n server(s)</source>
            <translation>
                <numerusform>%n Server</numerusform>
                <numerusform>%n Server</numerusform>
            </translation>
        </message>
        <message>
            <source>Choose a server</source>
            <translation>Server auswählen</translation>
        </message>
        <message>
            <source>This server has no package or address the app can install (for example a container image).</source>
            <translation>Dieser Server hat kein Paket und keine Adresse, die die App installieren kann (z. B. ein Container-Image).</translation>
        </message>
        <message>
            <source>Cannot add it: {0}</source>
            <translation>Hinzufügen nicht möglich: {0}</translation>
        </message>
    </context>
    <context>
        <name>McpClientFields</name>
        <message>
            <source>only if its sign-in asks for an app registered by hand</source>
            <translation>nur wenn die Anmeldung eine von Hand registrierte App verlangt</translation>
        </message>
        <message>
            <source>stored in the keyring; type to replace it</source>
            <translation>im Schlüsselbund gespeichert; zum Ersetzen tippen</translation>
        </message>
        <message>
            <source>optional; kept in the keyring</source>
            <translation>optional; im Schlüsselbund gespeichert</translation>
        </message>
        <message>
            <source>any free port</source>
            <translation>beliebiger freier Port</translation>
        </message>
        <message>
            <source>The port of the redirect URL registered with the app, if its sign-in wants an exact one</source>
            <translation>Der Port der bei der App registrierten Weiterleitungs-URL, falls die Anmeldung einen bestimmten verlangt</translation>
        </message>
        <message>
            <source>Client &amp;ID</source>
            <translation>Client-&amp;ID</translation>
        </message>
        <message>
            <source>Client s&amp;ecret</source>
            <translation>Client-&amp;Geheimnis</translation>
        </message>
        <message>
            <source>Callback &amp;port</source>
            <translation>Callback-&amp;Port</translation>
        </message>
        <message>
            <source>Redirect URL to register:
{address}</source>
            <translation>Zu registrierende Weiterleitungs-URL:
{address}</translation>
        </message>
    </context>
    <context>
        <name>McpDialog</name>
        <message>
            <source>MCP servers</source>
            <translation>MCP-Server</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
            <translation>Noch keine MCP-Server. Fügen Sie einen hinzu (einen Befehl wie „npx -y @modelcontextprotocol/server-filesystem ~/notes“ oder eine URL) oder importieren Sie Ihre Claude-Desktop-Konfiguration.</translation>
        </message>
        <message>
            <source>Save and start</source>
            <translation>Speichern und starten</translation>
        </message>
        <message>
            <source>Save the servers and (re)start them</source>
            <translation>Server speichern und (neu) starten</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>Hinzufügen</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importieren</translation>
        </message>
        <message>
            <source>From a file…</source>
            <translation>Aus einer Datei…</translation>
        </message>
        <message>
            <source>Paste JSON…</source>
            <translation>JSON einfügen…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>new — say how to reach it, then Save</source>
            <translation>neu — geben Sie an, wie er erreichbar ist, dann Speichern</translation>
        </message>
        <message>
            <source>switched off</source>
            <translation>ausgeschaltet</translation>
        </message>
        <message>
            <source>not started — Save to start it</source>
            <translation>nicht gestartet — Speichern, um ihn zu starten</translation>
        </message>
        <message>
            <source>failed: {error}</source>
            <translation>fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>no reason given</source>
            <translation>kein Grund angegeben</translation>
        </message>
        <message>
            <source>starting…</source>
            <translation>startet…</translation>
        </message>
        <message>
            <source>restarting…</source>
            <translation>Neustart…</translation>
        </message>
        <message>
            <source> (last error: {error})</source>
            <translation> (letzter Fehler: {error})</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>gestoppt</translation>
        </message>
        <message>
            <source> · changes not applied yet (Save)</source>
            <translation> · Änderungen noch nicht übernommen (Speichern)</translation>
        </message>
        <message>
            <source>(no name)</source>
            <translation>(ohne Namen)</translation>
        </message>
        <message>
            <source>Remove MCP server</source>
            <translation>MCP-Server entfernen</translation>
        </message>
        <message>
            <source>Remove {name}? Its tools leave every chat, and its stored keys and sign-in are deleted, when you Save.</source>
            <translation>{name} entfernen? Beim Speichern verschwinden seine Werkzeuge aus allen Chats, und seine gespeicherten Schlüssel und die Anmeldung werden gelöscht.</translation>
        </message>
        <message>
            <source>Removed {name}. Save to stop it.</source>
            <translation>{name} entfernt. Speichern, um ihn zu beenden.</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>MCP-Server importieren</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>JSON-Dateien (*.json);;Alle Dateien (*)</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n servers: {names}. Save to start them.</source>
            <translation>
                <numerusform>%n Server importiert: {names}. Speichern, um ihn zu starten.</numerusform>
                <numerusform>%n Server importiert: {names}. Speichern, um sie zu starten.</numerusform>
            </translation>
        </message>
        <message>
            <source>There are two servers named {name}; rename one.</source>
            <translation>Es gibt zwei Server namens {name}; benennen Sie einen um.</translation>
        </message>
        <message>
            <source>Saved. Starting the servers…</source>
            <translation>Gespeichert. Server werden gestartet…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Gespeichert.</translation>
        </message>
        <message>
            <source>{name} is not started: Save to start it.</source>
            <translation>{name} ist nicht gestartet: Speichern, um ihn zu starten.</translation>
        </message>
        <message>
            <source>This server</source>
            <translation>Dieser Server</translation>
        </message>
        <message>
            <source>Restarting {name}…</source>
            <translation>{name} wird neu gestartet…</translation>
        </message>
        <message>
            <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
            <translation>Sie haben ungespeicherte Änderungen: Speichern Sie sie oder klicken Sie erneut auf Schließen, um sie zu verwerfen.</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>Durchsuchen</translation>
        </message>
        <message>
            <source>Servers listed in the official MCP registry</source>
            <translation>Im offiziellen MCP-Verzeichnis gelistete Server</translation>
        </message>
    </context>
    <context>
        <name>McpResourceDialog</name>
        <message>
            <source>Attach from an MCP server</source>
            <translation>Von einem MCP-Server anhängen</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>Ressourcen</translation>
        </message>
        <message>
            <source>Attach</source>
            <translation>Anhängen</translation>
        </message>
        <message>
            <source>No running MCP server offers resources.</source>
            <translation>Kein laufender MCP-Server bietet Ressourcen an.</translation>
        </message>
        <message>
            <source>Reading {0}…</source>
            <translation>Lese {0}…</translation>
        </message>
        <message>
            <source>Cannot attach {0}: {1}</source>
            <translation>{0} kann nicht angehängt werden: {1}</translation>
        </message>
    </context>
    <context>
        <name>McpServerForm</name>
        <message>
            <source>Command (stdio)</source>
            <translation>Befehl (stdio)</translation>
        </message>
        <message>
            <source>URL (Streamable HTTP)</source>
            <translation>URL (Streamable HTTP)</translation>
        </message>
        <message>
            <source>URL (SSE, legacy)</source>
            <translation>URL (SSE, veraltet)</translation>
        </message>
        <message>
            <source>line {number}: write it as {example}</source>
            <translation>Zeile {number}: schreiben Sie sie als {example}</translation>
        </message>
        <message>
            <source>Shown in lists; also the prefix of its tools' names</source>
            <translation>In Listen angezeigt; auch das Präfix der Namen seiner Werkzeuge</translation>
        </message>
        <message>
            <source>Start this server</source>
            <translation>Diesen Server starten</translation>
        </message>
        <message>
            <source>npx, uvx, python, /path/to/server…</source>
            <translation>npx, uvx, python, /pfad/zum/server…</translation>
        </message>
        <message>
            <source>-y @modelcontextprotocol/server-filesystem "~/My notes"</source>
            <translation>-y @modelcontextprotocol/server-filesystem "~/Meine Notizen"</translation>
        </message>
        <message>
            <source>KEY=value, one per line</source>
            <translation>SCHLÜSSEL=Wert, einer pro Zeile</translation>
        </message>
        <message>
            <source>working folder (optional)</source>
            <translation>Arbeitsordner (optional)</translation>
        </message>
        <message>
            <source>https://example.com/mcp</source>
            <translation>https://example.com/mcp</translation>
        </message>
        <message>
            <source>Authorization: Bearer …, one per line</source>
            <translation>Authorization: Bearer …, eine pro Zeile</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Name</translation>
        </message>
        <message>
            <source>&amp;Connect with</source>
            <translation>&amp;Verbinden über</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>&amp;Befehl</translation>
        </message>
        <message>
            <source>&amp;Arguments</source>
            <translation>&amp;Argumente</translation>
        </message>
        <message>
            <source>&amp;Environment</source>
            <translation>&amp;Umgebung</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>&amp;Ordner</translation>
        </message>
        <message>
            <source>&amp;URL</source>
            <translation>&amp;URL</translation>
        </message>
        <message>
            <source>&amp;Headers</source>
            <translation>&amp;Header</translation>
        </message>
        <message>
            <source>Sign-in app</source>
            <translation>Anmelde-App</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>stderr des Servers</translation>
        </message>
        <message>
            <source>Server status</source>
            <translation>Serverstatus</translation>
        </message>
        <message>
            <source>Restart</source>
            <translation>Neu starten</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>stderr anzeigen</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Werkzeug</translation>
        </message>
        <message>
            <source>On</source>
            <translation>An</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Richtlinie</translation>
        </message>
        <message>
            <source>Tools of this server</source>
            <translation>Werkzeuge dieses Servers</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>Umgebung</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>Header</translation>
        </message>
        <message>
            <source>Arguments: a quotation mark is not closed, or the text ends with a backslash.</source>
            <translation>Argumente: Ein Anführungszeichen ist nicht geschlossen, oder der Text endet mit einem Backslash.</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Richtlinie für {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Standard ({policy})</translation>
        </message>
        <message>
            <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
            <translation>Einstellungen → Werkzeuge setzt dieses Werkzeug auf {policy}; das hat Vorrang vor dieser Auswahl</translation>
        </message>
        <message>
            <source>Sign in to use its tools.</source>
            <translation>Melden Sie sich an, um seine Werkzeuge zu nutzen.</translation>
        </message>
        <message>
            <source>Its tools are listed here once it runs.</source>
            <translation>Seine Werkzeuge erscheinen hier, sobald er läuft.</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>stderr ausblenden</translation>
        </message>
        <message>
            <source>(the server is not started)</source>
            <translation>(der Server ist nicht gestartet)</translation>
        </message>
        <message>
            <source>(nothing written yet)</source>
            <translation>(noch nichts geschrieben)</translation>
        </message>
    </context>
    <context>
        <name>McpSignInRow</name>
        <message>
            <source>Sign-in status</source>
            <translation>Anmeldestatus</translation>
        </message>
        <message>
            <source>Sign in</source>
            <translation>Anmelden</translation>
        </message>
        <message>
            <source>Sign in to this server in your browser</source>
            <translation>Im Browser bei diesem Server anmelden</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>Abmelden</translation>
        </message>
        <message>
            <source>Forget this server's sign-in</source>
            <translation>Anmeldung für diesen Server vergessen</translation>
        </message>
        <message>
            <source>Cancel sign-in</source>
            <translation>Anmeldung abbrechen</translation>
        </message>
        <message>
            <source>Stop waiting for the browser</source>
            <translation>Nicht länger auf den Browser warten</translation>
        </message>
        <message>
            <source>Signing out…</source>
            <translation>Abmelden…</translation>
        </message>
        <message>
            <source>Waiting for you to finish signing in in the browser…</source>
            <translation>Warte, bis Sie die Anmeldung im Browser abschließen…</translation>
        </message>
        <message>
            <source>This server needs you to sign in.</source>
            <translation>Dieser Server verlangt eine Anmeldung.</translation>
        </message>
        <message>
            <source>Signed in.</source>
            <translation>Angemeldet.</translation>
        </message>
        <message>
            <source>No sign-in used.</source>
            <translation>Keine Anmeldung verwendet.</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotices</name>
        <message>
            <source>Memory removed: {fact}</source>
            <translation>Erinnerung entfernt: {fact}</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>Rückgängig</translation>
        </message>
        <message>
            <source>Memory saved: {fact}</source>
            <translation>Erinnerung gespeichert: {fact}</translation>
        </message>
    </context>
    <context>
        <name>MemoryPage</name>
        <message>
            <source>Remember facts about me across chats</source>
            <translation>Fakten über mich über Chats hinweg merken</translation>
        </message>
        <message>
            <source>Off: memory is paused; no memory is sent to the model and none is saved</source>
            <translation>Aus: Das Gedächtnis pausiert; keine Erinnerung wird an das Modell gesendet und keine gespeichert</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Gedächtnis</translation>
        </message>
        <message>
            <source>When the assistant wants to remember something</source>
            <translation>Wenn der Assistent sich etwas merken möchte</translation>
        </message>
        <message>
            <source>Ask me first</source>
            <translation>Erst fragen</translation>
        </message>
        <message>
            <source>Save without asking</source>
            <translation>Ohne Nachfrage speichern</translation>
        </message>
        <message>
            <source>New memories</source>
            <translation>Neue Erinnerungen</translation>
        </message>
        <message>
            <source>Say “remember that…” in a chat, or the assistant may propose a memory. Memories stay on this computer; they are in exports and sync (encrypted), and are sent only in the system prompt of your chats. Temporary chats use none.</source>
            <translation>Sag in einem Chat „merk dir, dass…“, oder der Assistent schlägt eine Erinnerung vor. Erinnerungen bleiben auf diesem Computer; sie sind in Exporten und in der Synchronisierung (verschlüsselt) enthalten und werden nur im Systemprompt deiner Chats gesendet. Temporäre Chats verwenden keine.</translation>
        </message>
        <message>
            <source>Search memories…</source>
            <translation>Erinnerungen suchen…</translation>
        </message>
        <message>
            <source>Search memories</source>
            <translation>Erinnerungen suchen</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>Erinnerungen</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>Bearbeiten…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Delete all…</source>
            <translation>Alle löschen…</translation>
        </message>
        <message>
            <source>In a project only</source>
            <translation>Nur in einem Projekt</translation>
        </message>
        <message>
            <source>In every chat</source>
            <translation>In jedem Chat</translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n Erinnerung</numerusform>
                <numerusform>%n Erinnerungen</numerusform>
            </translation>
        </message>
        <message>
            <source>No memory matches the search.</source>
            <translation>Keine Erinnerung passt zur Suche.</translation>
        </message>
        <message>
            <source>No memories yet.</source>
            <translation>Noch keine Erinnerungen.</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>Erinnerung bearbeiten</translation>
        </message>
        <message>
            <source>What the assistant remembers:</source>
            <translation>Was sich der Assistent merkt:</translation>
        </message>
        <message>
            <source>Delete all memories</source>
            <translation>Alle Erinnerungen löschen</translation>
        </message>
        <message>
            <source>Delete every memory? The assistant forgets all it knows about you; this cannot be undone.</source>
            <translation>Alle Erinnerungen löschen? Der Assistent vergisst alles, was er über dich weiß; das lässt sich nicht rückgängig machen.</translation>
        </message>
        <message>
            <source>Delete all</source>
            <translation>Alle löschen</translation>
        </message>
    </context>
    <context>
        <name>MessageAccessibility</name>
        <message>
            <source>Code block, {language}</source>
            <translation>Codeblock, {language}</translation>
        </message>
        <message>
            <source>plain text</source>
            <translation>Klartext</translation>
        </message>
        <message>
            <source>Equation</source>
            <translation>Formel</translation>
        </message>
        <message>
            <source>Quote</source>
            <translation>Zitat</translation>
        </message>
        <message>
            <source>Table, {rows} rows, {columns} columns</source>
            <translation>Tabelle, {rows} Zeilen, {columns} Spalten</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Schlussfolgern</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>Ihre Nachricht</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Antwort</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Being written</source>
            <translation>Wird geschrieben</translation>
        </message>
    </context>
    <context>
        <name>MessageHeader</name>
        <message>
            <source>Copy</source>
            <extracomment>Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.</extracomment>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Copy this message as Markdown (the arrow has more)</source>
            <translation>Diese Nachricht als Markdown kopieren (der Pfeil bietet mehr)</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>Nachricht kopieren</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Weitere Aktionen</translation>
        </message>
        <message>
            <source>More: continue, fork into a new chat, delete</source>
            <translation>Mehr: fortsetzen, in neuen Chat abzweigen, löschen</translation>
        </message>
        <message>
            <source>Continue this answer</source>
            <translation>Diese Antwort fortsetzen</translation>
        </message>
        <message>
            <source>Fork into a new chat from here</source>
            <translation>Ab hier in einen neuen Chat abzweigen</translation>
        </message>
        <message>
            <source>Ask other models…</source>
            <translation>Andere Modelle fragen…</translation>
        </message>
        <message>
            <source>Delete this and what follows…</source>
            <translation>Diese und alle folgenden löschen…</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>Vorlesen</translation>
        </message>
        <message>
            <source>Preview this page…</source>
            <translation>Vorschau dieser Seite…</translation>
        </message>
        <message>
            <source>Opens in your browser: this runs the model's code, with every network request blocked</source>
            <translation>Öffnet sich im Browser: Das führt den Code des Modells aus, jede Netzwerkanfrage ist blockiert</translation>
        </message>
        <message>
            <source>Inspect the request…</source>
            <translation>Anfrage untersuchen…</translation>
        </message>
        <message>
            <source>What was sent, what came back, timings, Replay</source>
            <translation>Was gesendet wurde, was zurückkam, Zeiten, erneut senden</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Reasoning</source>
            <translation>Gedankengang</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>Gedankengang anzeigen</translation>
        </message>
        <message>
            <source>You asked to continue · {time}</source>
            <translation>Sie baten um Fortsetzung · {time}</translation>
        </message>
        <message>
            <source>You · {time}</source>
            <translation>Sie · {time}</translation>
        </message>
        <message>
            <source>Assistant · {model} · {time}</source>
            <translation>Assistent · {model} · {time}</translation>
        </message>
        <message>
            <source>Assistant · {time}</source>
            <translation>Assistent · {time}</translation>
        </message>
        <message>
            <source>■ Stopped</source>
            <translation>■ Gestoppt</translation>
        </message>
        <message>
            <source>⚠ Interrupted — the app closed while this answer was streaming</source>
            <translation>⚠ Unterbrochen — die App wurde geschlossen, während diese Antwort eintraf</translation>
        </message>
        <message>
            <source>Show more</source>
            <translation>Mehr anzeigen</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Weniger anzeigen</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Denkt nach…</translation>
        </message>
        <message>
            <source>Thought for {seconds} s</source>
            <translation>{seconds} s nachgedacht</translation>
        </message>
        <message>
            <source>Copy message as Markdown</source>
            <translation>Nachricht als Markdown kopieren</translation>
        </message>
        <message>
            <source>Copy message as plain text</source>
            <translation>Nachricht als reinen Text kopieren</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>Als Markdown kopieren</translation>
        </message>
        <message>
            <source>Copy as plain text</source>
            <translation>Als reinen Text kopieren</translation>
        </message>
        <message>
            <source>Copy code block {number}: {start}</source>
            <translation>Codeblock {number} kopieren: {start}</translation>
        </message>
    </context>
    <context>
        <name>MicButton</name>
        <message>
            <source>Recording… click to stop</source>
            <translation>Aufnahme… zum Beenden klicken</translation>
        </message>
        <message>
            <source>Stop and write down what you said</source>
            <translation>Beenden und das Gesagte aufschreiben</translation>
        </message>
        <message>
            <source>Stop dictation</source>
            <translation>Diktat beenden</translation>
        </message>
        <message>
            <source>Writing it down…</source>
            <translation>Wird aufgeschrieben…</translation>
        </message>
        <message>
            <source>Your recording is being written down</source>
            <translation>Ihre Aufnahme wird aufgeschrieben</translation>
        </message>
        <message>
            <source>Transcribing</source>
            <translation>Wird transkribiert</translation>
        </message>
        <message>
            <source>Dictate (failed)</source>
            <translation>Diktieren (fehlgeschlagen)</translation>
        </message>
        <message>
            <source>Dictate: record what you say, then edit the text before sending</source>
            <translation>Diktieren: Nimmt auf, was Sie sagen; den Text bearbeiten Sie vor dem Senden</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>Diktieren</translation>
        </message>
    </context>
    <context>
        <name>ModelPicker</name>
        <message>
            <source>Search models, or type a model id</source>
            <translation>Modelle suchen oder Modell-ID eingeben</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Modelle suchen</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modelle</translation>
        </message>
        <message>
            <source>No model matches. Press Enter to use the text as a model id.</source>
            <translation>Kein Modell passt. Drücken Sie Eingabe, um den Text als Modell-ID zu verwenden.</translation>
        </message>
        <message>
            <source>A model id has no spaces: nothing was changed.</source>
            <translation>Eine Modell-ID enthält keine Leerzeichen: Es wurde nichts geändert.</translation>
        </message>
    </context>
    <context>
        <name>ModelWords</name>
        <message>
            <source>Favourites</source>
            <translation>Favoriten</translation>
        </message>
        <message>
            <source>Recent</source>
            <translation>Zuletzt verwendet</translation>
        </message>
        <message>
            <source>makes images</source>
            <translation>erzeugt Bilder</translation>
        </message>
        <message>
            <source>tools</source>
            <translation>Werkzeuge</translation>
        </message>
        <message>
            <source>images</source>
            <translation>Bilder</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>Schlussfolgern</translation>
        </message>
    </context>
    <context>
        <name>PageCount</name>
        <message numerus="yes">
            <source>%n slide(s)</source>
            <translation>
                <numerusform>%n Folie</numerusform>
                <numerusform>%n Folien</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sheet(s)</source>
            <translation>
                <numerusform>%n Tabellenblatt</numerusform>
                <numerusform>%n Tabellenblätter</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n chapter(s)</source>
            <translation>
                <numerusform>%n Kapitel</numerusform>
                <numerusform>%n Kapitel</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s)</source>
            <translation>
                <numerusform>%n Seite</numerusform>
                <numerusform>%n Seiten</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PasteDialog</name>
        <message>
            <source>Paste MCP servers</source>
            <translation>MCP-Server einfügen</translation>
        </message>
        <message>
            <source>Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</source>
            <translation>Fügen Sie eine Konfiguration im Stil von Claude Desktop ein, z. B. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</translation>
        </message>
        <message>
            <source>MCP configuration JSON</source>
            <translation>MCP-Konfiguration als JSON</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importieren</translation>
        </message>
    </context>
    <context>
        <name>PricesDialog</name>
        <message>
            <source>Model id</source>
            <translation>Modell-ID</translation>
        </message>
        <message>
            <source>Input $/M</source>
            <translation>Eingabe $/M</translation>
        </message>
        <message>
            <source>Output $/M</source>
            <translation>Ausgabe $/M</translation>
        </message>
        <message>
            <source>Cached input $/M</source>
            <translation>Gecachte Eingabe $/M</translation>
        </message>
        <message>
            <source>Model prices</source>
            <translation>Modellpreise</translation>
        </message>
        <message>
            <source>Costs use the provider's own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
            <translation>Kosten nutzen die Angabe des Anbieters, falls er eine meldet, dann diese Preise, dann eine eingebaute Tabelle gängiger Modelle. Preise in US-Dollar pro Million Tokens; die Modell-ID muss exakt passen.</translation>
        </message>
        <message>
            <source>Add row</source>
            <translation>Zeile hinzufügen</translation>
        </message>
        <message>
            <source>Remove row</source>
            <translation>Zeile entfernen</translation>
        </message>
        <message>
            <source>Row {row}: enter a model id.</source>
            <translation>Zeile {row}: Geben Sie eine Modell-ID ein.</translation>
        </message>
        <message>
            <source>Row {row}: prices must be numbers.</source>
            <translation>Zeile {row}: Preise müssen Zahlen sein.</translation>
        </message>
        <message>
            <source>Row {row}: enter input and output prices.</source>
            <translation>Zeile {row}: Geben Sie Eingabe- und Ausgabepreis ein.</translation>
        </message>
        <message>
            <source>Row {row}: prices cannot be negative.</source>
            <translation>Zeile {row}: Preise können nicht negativ sein.</translation>
        </message>
    </context>
    <context>
        <name>ProjectActions</name>
        <message>
            <source>New chat in the project “{name}”: its instructions and files are part of every answer.</source>
            <translation>Neuer Chat im Projekt „{name}“: seine Anweisungen und Dateien fließen in jede Antwort ein.</translation>
        </message>
        <message>
            <source>New chat in the project {name}</source>
            <translation>Neuer Chat im Projekt {name}</translation>
        </message>
        <message>
            <source>Delete the project “{name}”?</source>
            <translation>Projekt „{name}“ löschen?</translation>
        </message>
        <message numerus="yes">
            <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
            <translation>
                <numerusform>Sein %n Chat bleibt erhalten und wird aus dem Projekt genommen. Seine Anweisungen und der Text seiner Dateien werden gelöscht.</numerusform>
                <numerusform>Seine %n Chats bleiben erhalten und werden aus dem Projekt genommen. Seine Anweisungen und der Text seiner Dateien werden gelöscht.</numerusform>
            </translation>
        </message>
        <message>
            <source>Delete project</source>
            <translation>Projekt löschen</translation>
        </message>
        <message numerus="yes">
            <source>Deleted the project {name}; its %n chats are in the list.</source>
            <translation>
                <numerusform>Projekt {name} gelöscht; sein %n Chat ist in der Liste.</numerusform>
                <numerusform>Projekt {name} gelöscht; seine %n Chats sind in der Liste.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ProjectPage</name>
        <message>
            <source>e.g. Thesis, Garden, Client X</source>
            <translation>z. B. Abschlussarbeit, Garten, Kunde X</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Name</translation>
        </message>
        <message>
            <source>What every chat in this project should know or do. Added after the assistant's prompt.</source>
            <translation>Was jeder Chat in diesem Projekt wissen oder tun soll. Wird nach dem Prompt des Assistenten angefügt.</translation>
        </message>
        <message>
            <source>Instructions</source>
            <translation>Anweisungen</translation>
        </message>
        <message>
            <source>The provider's default</source>
            <translation>Standard des Anbieters</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Standardmodell</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Keiner</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Auswählen…</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Arbeitsordner</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Wissensdatenbanken</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>Dateien</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Nur diese Werkzeuge</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Nur diese Werkzeuge (sonst die Werkzeug-Einstellungen der App)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Aktivierte Werkzeuge</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Werkzeuge</translation>
        </message>
        <message>
            <source>Every chat in the project has these: small text files whole, larger ones searched.</source>
            <translation>Jeder Chat im Projekt hat diese: kleine Textdateien vollständig, größere werden durchsucht.</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Dateien hinzufügen…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>New chat in this project</source>
            <translation>Neuer Chat in diesem Projekt</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Projekt löschen…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>Project: {name}</source>
            <translation>Projekt: {name}</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Neues Projekt</translation>
        </message>
        <message>
            <source>No knowledge bases yet.</source>
            <translation>Noch keine Wissensdatenbanken.</translation>
        </message>
        <message>
            <source>in every chat</source>
            <translation>in jedem Chat</translation>
        </message>
        <message>
            <source>searched when needed</source>
            <translation>bei Bedarf durchsucht</translation>
        </message>
        <message>
            <source>No chats yet. Start one, or drag a chat onto the project in the list.</source>
            <translation>Noch keine Chats. Starte einen oder ziehe einen Chat in der Liste auf das Projekt.</translation>
        </message>
        <message>
            <source>Adding…</source>
            <translation>Wird hinzugefügt…</translation>
        </message>
        <message>
            <source>Add files to the project</source>
            <translation>Dateien zum Projekt hinzufügen</translation>
        </message>
    </context>
    <context>
        <name>ProjectSection</name>
        <message>
            <source>Projects</source>
            <translation>Projekte</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Neues Projekt</translation>
        </message>
        <message>
            <source>Drag a chat here to move it into a project</source>
            <translation>Ziehe einen Chat hierher, um ihn in ein Projekt zu verschieben</translation>
        </message>
        <message>
            <source>Group chats with shared instructions and files.</source>
            <translation>Gruppiere Chats mit gemeinsamen Anweisungen und Dateien.</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n Chat</numerusform>
                <numerusform>%n Chats</numerusform>
            </translation>
        </message>
        <message>
            <source>Open project</source>
            <translation>Projekt öffnen</translation>
        </message>
        <message>
            <source>New chat in project</source>
            <translation>Neuer Chat im Projekt</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Projekt löschen…</translation>
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
            <translation>Senden</translation>
        </message>
        <message>
            <source>Fill in: {0}</source>
            <translation>Ausfüllen: {0}</translation>
        </message>
    </context>
    <context>
        <name>ProviderDialog</name>
        <message>
            <source>Providers</source>
            <translation>Anbieter</translation>
        </message>
        <message>
            <source>Add to my providers</source>
            <translation>Zu meinen Anbietern hinzufügen</translation>
        </message>
        <message>
            <source>Add detected provider to my providers</source>
            <translation>Erkannten Anbieter zu meinen Anbietern hinzufügen</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>New provider</source>
            <translation>Neuer Anbieter</translation>
        </message>
        <message>
            <source>Discard your changes to “{name}”?</source>
            <translation>Ihre Änderungen an „{name}“ verwerfen?</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>Ungespeicherte Änderungen</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Gespeichert.</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its saved API key is deleted too.</source>
            <translation>„{name}“ entfernen? Sein gespeicherter API-Schlüssel wird ebenfalls gelöscht.</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Anbieter entfernen</translation>
        </message>
        <message>
            <source>Added to your providers.</source>
            <translation>Zu Ihren Anbietern hinzugefügt.</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Header line {number} should look like “Name: value”</source>
            <translation>Header-Zeile {number} sollte wie „Name: Wert“ aussehen</translation>
        </message>
        <message>
            <source>Provider name</source>
            <translation>Name des Anbieters</translation>
        </message>
        <message>
            <source>A name you will recognize</source>
            <translation>Ein Name, den Sie wiedererkennen</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Name</translation>
        </message>
        <message>
            <source>Preset</source>
            <translation>Vorlage</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>Basis-URL</translation>
        </message>
        <message>
            <source>https://example.com/v1</source>
            <translation>https://example.com/v1</translation>
        </message>
        <message>
            <source>Base &amp;URL</source>
            <translation>Basis-&amp;URL</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API-Schlüssel</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>Anzeigen</translation>
        </message>
        <message>
            <source>Show API key</source>
            <translation>API-Schlüssel anzeigen</translation>
        </message>
        <message>
            <source>Get a key</source>
            <translation>Schlüssel besorgen</translation>
        </message>
        <message>
            <source>API &amp;key</source>
            <translation>API-&amp;Schlüssel</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>Modelle abrufen</translation>
        </message>
        <message>
            <source>Ask the provider which models it offers</source>
            <translation>Den Anbieter fragen, welche Modelle er anbietet</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>&amp;Modell</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>Zusätzliche Header</translation>
        </message>
        <message>
            <source>Optional, one per line — Name: value</source>
            <translation>Optional, eine pro Zeile — Name: Wert</translation>
        </message>
        <message>
            <source>Extra &amp;headers</source>
            <translation>Zusätzliche &amp;Header</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Verbindung testen</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>Verbindungsstatus</translation>
        </message>
        <message>
            <source>an environment variable</source>
            <translation>einer Umgebungsvariablen</translation>
        </message>
        <message>
            <source>Read from {variable} (never stored by Assista)</source>
            <translation>Aus {variable} gelesen (nie von Assista gespeichert)</translation>
        </message>
        <message>
            <source>Not needed for {name} (optional)</source>
            <translation>Für {name} nicht nötig (optional)</translation>
        </message>
        <message>
            <source>Paste your API key</source>
            <translation>Fügen Sie Ihren API-Schlüssel ein</translation>
        </message>
        <message>
            <source>Enter a name.</source>
            <translation>Geben Sie einen Namen ein.</translation>
        </message>
        <message>
            <source>Enter the base URL (for example https://api.openai.com/v1).</source>
            <translation>Geben Sie die Basis-URL ein (zum Beispiel https://api.openai.com/v1).</translation>
        </message>
        <message>
            <source>The base URL must start with http:// or https:// and name a server.</source>
            <translation>Die Basis-URL muss mit http:// oder https:// beginnen und einen Server nennen.</translation>
        </message>
        <message>
            <source>Put the key in the API key field, not in the {name} header.</source>
            <translation>Tragen Sie den Schlüssel ins Feld API-Schlüssel ein, nicht in den Header {name}.</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>Wird bearbeitet…</translation>
        </message>
        <message>
            <source>✗ Internal error: no asyncio event loop is running.</source>
            <translation>✗ Interner Fehler: Keine asyncio-Ereignisschleife läuft.</translation>
        </message>
        <message>
            <source>Testing connection…</source>
            <translation>Verbindung wird getestet…</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>Modelle werden abgerufen…</translation>
        </message>
        <message>
            <source>Unexpected error: {error}</source>
            <translation>Unerwarteter Fehler: {error}</translation>
        </message>
        <message numerus="yes">
            <source>✓ Connected — %n models</source>
            <translation>
                <numerusform>✓ Verbunden — %n Modell</numerusform>
                <numerusform>✓ Verbunden — %n Modelle</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>✓ %n models found</source>
            <translation>
                <numerusform>✓ %n Modell gefunden</numerusform>
                <numerusform>✓ %n Modelle gefunden</numerusform>
            </translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>Ausblenden</translation>
        </message>
        <message>
            <source>Hide API key</source>
            <translation>API-Schlüssel verbergen</translation>
        </message>
    </context>
    <context>
        <name>ProviderList</name>
        <message>
            <source>Providers</source>
            <translation>Anbieter</translation>
        </message>
        <message>
            <source>Add provider</source>
            <translation>Anbieter hinzufügen</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Anbieter entfernen</translation>
        </message>
        <message>
            <source>No base URL yet</source>
            <translation>Noch keine Basis-URL</translation>
        </message>
    </context>
    <context>
        <name>ProviderOptionsBox</name>
        <message>
            <source>Tools</source>
            <translation>Werkzeuge</translation>
        </message>
        <message>
            <source>Tools capability</source>
            <translation>Fähigkeit: Werkzeuge</translation>
        </message>
        <message>
            <source>Images</source>
            <translation>Bilder</translation>
        </message>
        <message>
            <source>Images capability</source>
            <translation>Fähigkeit: Bilder</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Schlussfolgern</translation>
        </message>
        <message>
            <source>Reasoning capability</source>
            <translation>Fähigkeit: Schlussfolgern</translation>
        </message>
        <message>
            <source>minimal</source>
            <translation>minimal</translation>
        </message>
        <message>
            <source>low</source>
            <translation>niedrig</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>mittel</translation>
        </message>
        <message>
            <source>high</source>
            <translation>hoch</translation>
        </message>
        <message>
            <source>Model behaviour</source>
            <translation>Modellverhalten</translation>
        </message>
        <message>
            <source>Ask the model to think before answering</source>
            <translation>Das Modell vor dem Antworten nachdenken lassen</translation>
        </message>
        <message>
            <source>Extended thinking</source>
            <translation>Erweitertes Nachdenken</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> Tokens</translation>
        </message>
        <message>
            <source>Thinking budget</source>
            <translation>Denkbudget</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Denkaufwand</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Nachdenken</translation>
        </message>
        <message>
            <source>Chain responses on the server (previous_response_id)</source>
            <translation>Antworten auf dem Server verketten (previous_response_id)</translation>
        </message>
        <message>
            <source>Stateless replay (store: false)</source>
            <translation>Zustandslose Wiederholung (store: false)</translation>
        </message>
        <message>
            <source>Responses API mode</source>
            <translation>Modus der Responses-API</translation>
        </message>
        <message>
            <source>Conversation state</source>
            <translation>Gesprächszustand</translation>
        </message>
        <message>
            <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
            <translation>Markiert: das Modell kann es · Nicht markiert: es kann es nicht · Teilweise markiert: nach dem Modellnamen entscheiden</translation>
        </message>
        <message>
            <source>Capabilities</source>
            <translation>Fähigkeiten</translation>
        </message>
    </context>
    <context>
        <name>ProviderText</name>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>Eigener (OpenAI-kompatibel)</translation>
        </message>
        <message>
            <source>{name} — not saved</source>
            <translation>{name} — nicht gespeichert</translation>
        </message>
        <message>
            <source>{name} — from environment ({variable})</source>
            <translation>{name} — aus der Umgebung ({variable})</translation>
        </message>
        <message>
            <source>no key</source>
            <translation>kein Schlüssel</translation>
        </message>
        <message>
            <source>{name} — detected</source>
            <translation>{name} — erkannt</translation>
        </message>
        <message>
            <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
            <translation>Aus der Umgebung ({variable}). Hier schreibgeschützt: Der Schlüssel bleibt in der Umgebung und wird nie in Assista kopiert.</translation>
        </message>
        <message>
            <source>{name} is running on this computer. Add it to edit it.</source>
            <translation>{name} läuft auf diesem Computer. Fügen Sie ihn hinzu, um ihn zu bearbeiten.</translation>
        </message>
        <message>
            <source>The key is read from {variable} each time Assista starts.</source>
            <translation>Der Schlüssel wird bei jedem Start von Assista aus {variable} gelesen.</translation>
        </message>
        <message>
            <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
            <translation>Kein Schlüsselbund gefunden: Schlüssel werden in einer nur für Sie lesbaren Datei gespeichert ({file})</translation>
        </message>
        <message>
            <source>Keys are stored in the system keyring ({keyring})</source>
            <translation>Schlüssel werden im Schlüsselbund des Systems gespeichert ({keyring})</translation>
        </message>
    </context>
    <context>
        <name>QuickAsk</name>
        <message>
            <source>&amp;Quick ask…</source>
            <extracomment>an answer in the quick window finished: chat title, answer, failed, the quick window started alone (``assista quick``), put away, and the main window is hidden too</extracomment>
            <translation>&amp;Schnellfrage…</translation>
        </message>
    </context>
    <context>
        <name>QuickAskWindow</name>
        <message>
            <source>Quick ask</source>
            <translation>Schnellfrage</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>Frage</translation>
        </message>
        <message>
            <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
            <translation>Eingabe sendet, Umschalt+Eingabe fügt eine Zeile ein, Esc schließt das Fenster</translation>
        </message>
        <message>
            <source>Ask anything… (Enter sends)</source>
            <translation>Fragen Sie etwas… (Eingabe sendet)</translation>
        </message>
        <message>
            <source>Insert &amp;selection</source>
            <translation>&amp;Auswahl einfügen</translation>
        </message>
        <message>
            <source>Insert the text selected in another application (or the clipboard)</source>
            <translation>Den in einer anderen Anwendung markierten Text (oder die Zwischenablage) einfügen</translation>
        </message>
        <message>
            <source>&amp;Open in the main window</source>
            <translation>Im Haupt&amp;fenster öffnen</translation>
        </message>
        <message>
            <source>Continue this chat in the main window</source>
            <translation>Diesen Chat im Hauptfenster fortsetzen</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>Status</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Antwort</translation>
        </message>
        <message>
            <source>Add a provider in the main window first (Settings → Providers).</source>
            <translation>Fügen Sie zuerst im Hauptfenster einen Anbieter hinzu (Einstellungen → Anbieter).</translation>
        </message>
        <message>
            <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
            <translation>{tool} wartet auf Ihre Zustimmung: Öffnen Sie diesen Chat im Hauptfenster, um zu antworten.</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Stopp</translation>
        </message>
        <message>
            <source>Nothing is selected and the clipboard is empty.</source>
            <translation>Nichts ist markiert und die Zwischenablage ist leer.</translation>
        </message>
    </context>
    <context>
        <name>QuitGuard</name>
        <message>
            <source>Quit while answering?</source>
            <translation>Beenden, während geantwortet wird?</translation>
        </message>
        <message numerus="yes">
            <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
            <translation>
                <numerusform>%n Chat antwortet noch. Trotzdem beenden? Was er bisher geschrieben hat, bleibt erhalten und wird als gestoppt markiert.</numerusform>
                <numerusform>%n Chats antworten noch. Trotzdem beenden? Was sie bisher geschrieben haben, bleibt erhalten und wird als gestoppt markiert.</numerusform>
            </translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>Beenden</translation>
        </message>
    </context>
    <context>
        <name>ReadingBar</name>
        <message>
            <source>Stop</source>
            <translation>Stopp</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>Vorlesen beenden</translation>
        </message>
        <message>
            <source>Preparing to read aloud…</source>
            <translation>Vorlesen wird vorbereitet…</translation>
        </message>
        <message>
            <source>Reading aloud</source>
            <translation>Wird vorgelesen</translation>
        </message>
        <message>
            <source>Reading aloud (paused)</source>
            <translation>Wird vorgelesen (angehalten)</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pause</translation>
        </message>
        <message>
            <source>Go on reading</source>
            <translation>Weiterlesen</translation>
        </message>
        <message>
            <source>Pause reading</source>
            <translation>Vorlesen anhalten</translation>
        </message>
    </context>
    <context>
        <name>ReplayView</name>
        <message>
            <source>First token %1 · total %2 · %3 tokens · %4 tok/s</source>
            <translation>Erstes Token %1 · gesamt %2 · %3 Tokens · %4 Tok./s</translation>
        </message>
        <message>
            <source>Provider to send to</source>
            <translation>Anbieter, an den gesendet wird</translation>
        </message>
        <message>
            <source>Model to send to</source>
            <translation>Modell, an das gesendet wird</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Wiedergabe</translation>
        </message>
        <message>
            <source>Send the same request again (nothing is added to the chat)</source>
            <translation>Dieselbe Anfrage erneut senden (dem Chat wird nichts hinzugefügt)</translation>
        </message>
        <message>
            <source>Not replayed yet</source>
            <translation>Noch nicht erneut gesendet</translation>
        </message>
        <message>
            <source>Send to:</source>
            <translation>Senden an:</translation>
        </message>
        <message>
            <source>No provider is configured.</source>
            <translation>Kein Anbieter ist eingerichtet.</translation>
        </message>
        <message>
            <source>Sending the request again…</source>
            <translation>Anfrage wird erneut gesendet…</translation>
        </message>
        <message>
            <source>Replay failed.</source>
            <translation>Erneutes Senden fehlgeschlagen.</translation>
        </message>
        <message>
            <source>Replayed.</source>
            <translation>Erneut gesendet.</translation>
        </message>
    </context>
    <context>
        <name>RequestInspector</name>
        <message>
            <source>There is no answer in this chat to inspect yet.</source>
            <translation>In diesem Chat gibt es noch keine Antwort zum Untersuchen.</translation>
        </message>
        <message>
            <source>The recorded requests cannot be read: %1</source>
            <translation>Die aufgezeichneten Anfragen können nicht gelesen werden: %1</translation>
        </message>
        <message>
            <source>No request was recorded for this answer. Recording may be off in Settings, or the record is older than the retention period.</source>
            <translation>Für diese Antwort wurde keine Anfrage aufgezeichnet. Die Aufzeichnung ist vielleicht in den Einstellungen ausgeschaltet, oder der Eintrag ist älter als die Aufbewahrungsdauer.</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Anfrage-Inspektor</translation>
        </message>
    </context>
    <context>
        <name>ResearchPanel</name>
        <message>
            <source>Research progress</source>
            <translation>Fortschritt der Recherche</translation>
        </message>
        <message>
            <source>Research status</source>
            <translation>Status der Recherche</translation>
        </message>
        <message>
            <source>Hide the research progress</source>
            <translation>Fortschritt der Recherche ausblenden</translation>
        </message>
        <message>
            <source>Research time, tokens and cost</source>
            <translation>Zeit, Tokens und Kosten der Recherche</translation>
        </message>
        <message>
            <source>Plan:</source>
            <translation>Plan:</translation>
        </message>
        <message numerus="yes">
            <source>Searches (%n):</source>
            <translation>
                <numerusform>Suchen (%n):</numerusform>
                <numerusform>Suchen (%n):</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Sources read (%n):</source>
            <translation>
                <numerusform>Gelesene Quellen (%n):</numerusform>
                <numerusform>Gelesene Quellen (%n):</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s) could not be read.</source>
            <translation>
                <numerusform>%n Seite konnte nicht gelesen werden.</numerusform>
                <numerusform>%n Seiten konnten nicht gelesen werden.</numerusform>
            </translation>
        </message>
        <message>
            <source>Research: making a plan…</source>
            <translation>Recherche: Plan wird erstellt…</translation>
        </message>
        <message>
            <source>Research: searching…</source>
            <translation>Recherche: Suche läuft…</translation>
        </message>
        <message>
            <source>Research: reading pages…</source>
            <translation>Recherche: Seiten werden gelesen…</translation>
        </message>
        <message>
            <source>Research: writing the report…</source>
            <translation>Recherche: Bericht wird geschrieben…</translation>
        </message>
        <message>
            <source>Research finished</source>
            <translation>Recherche abgeschlossen</translation>
        </message>
        <message>
            <source>(round {round} of {rounds})</source>
            <translation>(Runde {round} von {rounds})</translation>
        </message>
        <message>
            <source>{elapsed} of {limit}</source>
            <translation>{elapsed} von {limit}</translation>
        </message>
        <message numerus="yes">
            <source>%n token(s)</source>
            <translation>
                <numerusform>%n Token</numerusform>
                <numerusform>%n Tokens</numerusform>
            </translation>
        </message>
        <message>
            <source>cost unknown</source>
            <translation>Kosten unbekannt</translation>
        </message>
        <message>
            <source>{cost} of {ceiling}</source>
            <translation>{cost} von {ceiling}</translation>
        </message>
        <message numerus="yes">
            <source>Stopped at the limit of %n search round(s).</source>
            <translation>
                <numerusform>Beim Limit von %n Suchrunde angehalten.</numerusform>
                <numerusform>Beim Limit von %n Suchrunden angehalten.</numerusform>
            </translation>
        </message>
        <message>
            <source>Stopped at the time limit ({limit}).</source>
            <translation>Beim Zeitlimit ({limit}) angehalten.</translation>
        </message>
        <message>
            <source>Stopped at the cost ceiling ({ceiling}); the report is made of what was found.</source>
            <translation>Bei der Kostengrenze ({ceiling}) angehalten; der Bericht besteht aus dem Gefundenen.</translation>
        </message>
        <message>
            <source>Stopped; the report holds what was found so far.</source>
            <translation>Angehalten; der Bericht enthält das bisher Gefundene.</translation>
        </message>
        <message>
            <source>The research failed; what was found is kept in the report.</source>
            <translation>Die Recherche ist fehlgeschlagen; das Gefundene bleibt im Bericht.</translation>
        </message>
    </context>
    <context>
        <name>ResponsivePanels</name>
        <message>
            <source>Show the chat list (Ctrl+Shift+L)</source>
            <translation>Chatliste anzeigen (Strg+Umschalt+L)</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Chatliste</translation>
        </message>
    </context>
    <context>
        <name>ResultColumn</name>
        <message>
            <source>Error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>Answer of %1</source>
            <translation>Antwort von %1</translation>
        </message>
    </context>
    <context>
        <name>RetrievalText</name>
        <message>
            <source>Query</source>
            <translation>Abfrage</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>Nichts gefunden.</translation>
        </message>
    </context>
    <context>
        <name>SaveBanner</name>
        <message>
            <source>Retry</source>
            <translation>Erneut versuchen</translation>
        </message>
        <message>
            <source>Try to store the answer again</source>
            <translation>Erneut versuchen, die Antwort zu speichern</translation>
        </message>
        <message>
            <source>Retry saving the answer</source>
            <translation>Antwort erneut speichern</translation>
        </message>
        <message>
            <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
            <translation>Die Antwort konnte nicht gespeichert werden: {error}. Sie bleibt hier, bis sie gespeichert ist.</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Wird gespeichert…</translation>
        </message>
        <message>
            <source>Still not saved: {error}. The answer is kept here; try again.</source>
            <translation>Immer noch nicht gespeichert: {error}. Die Antwort bleibt hier erhalten; versuchen Sie es erneut.</translation>
        </message>
    </context>
    <context>
        <name>ScopeRow</name>
        <message>
            <source>Always allow for paths matching</source>
            <translation>Immer erlauben für Pfade passend zu</translation>
        </message>
        <message>
            <source>Always allow for the command</source>
            <translation>Immer erlauben für den Befehl</translation>
        </message>
        <message>
            <source>Always allow needs a scope: type one, or allow once.</source>
            <translation>„Immer erlauben“ braucht einen Bereich: Geben Sie einen ein, oder erlauben Sie einmal.</translation>
        </message>
        <message>
            <source>The pattern must stay inside the workspace (a relative path).</source>
            <translation>Das Muster muss im Arbeitsbereich bleiben (ein relativer Pfad).</translation>
        </message>
        <message>
            <source>Files in a .git folder are never allowed without asking.</source>
            <translation>Dateien in einem .git-Ordner werden nie ohne Nachfrage erlaubt.</translation>
        </message>
        <message>
            <source>A command with shell syntax ($ ` ; | &amp; &gt; &lt; \, a line break, or * ? ~ ( ) outside quotes) cannot be always allowed.</source>
            <translation>Ein Befehl mit Shell-Syntax ($ ` ; | &amp; &gt; &lt; \, ein Zeilenumbruch oder * ? ~ ( ) außerhalb von Anführungszeichen) kann nicht immer erlaubt werden.</translation>
        </message>
        <message>
            <source>A host is a name such as api.example.com or *.example.com.</source>
            <translation>Ein Host ist ein Name wie api.example.com oder *.example.com.</translation>
        </message>
        <message>
            <source>This call cannot be always allowed.</source>
            <translation>Dieser Aufruf kann nicht immer erlaubt werden.</translation>
        </message>
        <message>
            <source>Writes to paths matching {scope} (never inside .git) run without asking, in every chat.</source>
            <translation>Schreibzugriffe auf Pfade passend zu {scope} (nie in .git) laufen in jedem Chat ohne Nachfrage.</translation>
        </message>
        <message>
            <source>Fetches from {scope} run without asking, in every chat.</source>
            <translation>Abrufe von {scope} laufen in jedem Chat ohne Nachfrage.</translation>
        </message>
        <message>
            <source>“{scope}” runs without asking, in every chat, with its read-only options and arguments inside the workspace; anything else asks again.</source>
            <translation>„{scope}“ läuft in jedem Chat ohne Nachfrage, mit seinen nur lesenden Optionen und Argumenten innerhalb des Arbeitsbereichs; alles andere fragt erneut.</translation>
        </message>
        <message>
            <source>Exactly the command “{scope}” runs without asking, in every chat; any other asks again.</source>
            <translation>Genau der Befehl „{scope}“ läuft in jedem Chat ohne Nachfrage; jeder andere fragt erneut.</translation>
        </message>
        <message>
            <source>What “Always allow” grants: calls inside it will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
            <translation>Was „Immer erlauben“ gewährt: Aufrufe darin laufen in jedem Chat ohne Nachfrage; andere fragen weiterhin. Widerrufen unter Einstellungen → Werkzeuge.</translation>
        </message>
        <message>
            <source>Always allow for the host</source>
            <translation>Immer erlauben für den Host</translation>
        </message>
    </context>
    <context>
        <name>SearchDialog</name>
        <message>
            <source>d MMM</source>
            <translation>d. MMM</translation>
        </message>
        <message>
            <source>Search chats</source>
            <translation>Chats durchsuchen</translation>
        </message>
        <message>
            <source>Search every chat — words, "exact phrases", any language</source>
            <translation>Alle Chats durchsuchen — Wörter, "exakte Phrasen", jede Sprache</translation>
        </message>
        <message>
            <source>Search results</source>
            <translation>Suchergebnisse</translation>
        </message>
        <message>
            <source>No matches.</source>
            <translation>Keine Treffer.</translation>
        </message>
        <message numerus="yes">
            <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n Treffer (die neuesten angezeigt) · Eingabe öffnet · ↑↓ bewegen · Esc schließt</numerusform>
                <numerusform>%n Treffer (die neuesten angezeigt) · Eingabe öffnet · ↑↓ bewegen · Esc schließt</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n Treffer · Eingabe öffnet · ↑↓ bewegen · Esc schließt</numerusform>
                <numerusform>%n Treffer · Eingabe öffnet · ↑↓ bewegen · Esc schließt</numerusform>
            </translation>
        </message>
        <message>
            <source>Type to search every chat, every branch, tool calls and titles.</source>
            <translation>Tippen Sie, um alle Chats, alle Zweige, Werkzeugaufrufe und Titel zu durchsuchen.</translation>
        </message>
    </context>
    <context>
        <name>SectionDelegate</name>
        <message numerus="yes">
            <source>%n messages</source>
            <translation>
                <numerusform>%n Nachricht</numerusform>
                <numerusform>%n Nachrichten</numerusform>
            </translation>
        </message>
        <message>
            <source>Now: {state}</source>
            <translation>Jetzt: {state}</translation>
        </message>
    </context>
    <context>
        <name>Segment</name>
        <message>
            <source>Copy</source>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>Speichern…</translation>
        </message>
        <message>
            <source>Picture</source>
            <translation>Bild</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Quelltext</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vorschau</translation>
        </message>
        <message>
            <source>Open in your browser: this runs the model's code, with every network request blocked</source>
            <translation>Im Browser öffnen: Das führt den Code des Modells aus, jede Netzwerkanfrage ist blockiert</translation>
        </message>
        <message>
            <source>Show the code, or the drawing</source>
            <translation>Code oder Zeichnung zeigen</translation>
        </message>
        <message>
            <source>Save this as a file</source>
            <translation>Als Datei speichern</translation>
        </message>
        <message>
            <source>The preview runs the model's code in your web browser. Every network request from it is blocked, so it cannot send anything anywhere or load anything. Open it?</source>
            <translation>Die Vorschau führt den Code des Modells in Ihrem Webbrowser aus. Jede Netzwerkanfrage daraus ist blockiert, sie kann also nichts irgendwohin senden und nichts laden. Öffnen?</translation>
        </message>
        <message>
            <source>This build has no mermaid.js, so diagrams cannot be previewed.</source>
            <translation>Diese Version enthält kein mermaid.js, daher können Diagramme nicht in der Vorschau gezeigt werden.</translation>
        </message>
        <message>
            <source>Could not write the preview: {error}</source>
            <translation>Die Vorschau konnte nicht geschrieben werden: {error}</translation>
        </message>
        <message>
            <source>Save as</source>
            <translation>Speichern unter</translation>
        </message>
        <message>
            <source>{kind} files (*{suffix});;All files (*)</source>
            <translation>{kind}-Dateien (*{suffix});;Alle Dateien (*)</translation>
        </message>
        <message>
            <source>Could not save {path}: {error}</source>
            <translation>{path} konnte nicht gespeichert werden: {error}</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>Kopiert</translation>
        </message>
    </context>
    <context>
        <name>ServerQuestionCard</name>
        <message>
            <source>MCP server {0} asks</source>
            <translation>MCP-Server {0} fragt</translation>
        </message>
        <message>
            <source>MCP server {0} wants the model to answer</source>
            <translation>MCP-Server {0} möchte, dass das Modell antwortet</translation>
        </message>
        <message>
            <source>In “{0}”</source>
            <translation>In „{0}“</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Fertig</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>Decline</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>The messages the server sends</source>
            <translation>Die Nachrichten, die der Server sendet</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>Erlauben</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>At most {0} tokens.</source>
            <translation>Höchstens {0} Tokens.</translation>
        </message>
        <message>
            <source>(an image, {0})</source>
            <translation>(ein Bild, {0})</translation>
        </message>
    </context>
    <context>
        <name>SessionItems</name>
        <message>
            <source>waiting for the provider</source>
            <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
            <translation>wartet auf den Anbieter</translation>
        </message>
        <message>
            <source>answering</source>
            <translation>antwortet</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>wartet auf Ihre Zustimmung</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>fehlgeschlagen</translation>
        </message>
        <message>
            <source>new answer</source>
            <translation>neue Antwort</translation>
        </message>
        <message>
            <source>Today</source>
            <extracomment>The drag of a chat (onto a project): its session id, as UTF-8.</extracomment>
            <translation>Heute</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>Gestern</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>Letzte 7 Tage</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>Älter</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>Angeheftet</translation>
        </message>
        <message>
            <source>Last changed {time}</source>
            <translation>Zuletzt geändert {time}</translation>
        </message>
        <message>
            <source>Deleted {time}</source>
            <translation>Gelöscht {time}</translation>
        </message>
    </context>
    <context>
        <name>SessionList</name>
        <message>
            <source>+  New chat</source>
            <extracomment>Chats added each time the list is scrolled to its end: with thousands of chats, listing them all took hundreds of milliseconds on every change (each sent message; tests/bench/bench_shipped_startup.py). Chats listed at first: more than a tall window's list shows. The window lists them when it is built and again when a question typed while it loaded is sent, both before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.</extracomment>
            <translation>+  Neuer Chat</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>Eine neue Unterhaltung beginnen (Strg+N)</translation>
        </message>
        <message>
            <source>Search chats…   Ctrl+K</source>
            <translation>Chats durchsuchen…   Strg+K</translation>
        </message>
        <message>
            <source>Find a chat by a word in it (Ctrl+K)</source>
            <translation>Einen Chat über ein Wort darin finden (Strg+K)</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>Papierkorb leeren</translation>
        </message>
        <message>
            <source>Show chats</source>
            <translation>Chats anzeigen</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>Archiviert</translation>
        </message>
        <message>
            <source>Show archived chats</source>
            <translation>Archivierte Chats anzeigen</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>Papierkorb</translation>
        </message>
        <message>
            <source>Show the trash</source>
            <translation>Papierkorb anzeigen</translation>
        </message>
        <message numerus="yes">
            <source>Chats here are erased after %n days.</source>
            <translation>
                <numerusform>Chats hier werden nach %n Tag gelöscht.</numerusform>
                <numerusform>Chats hier werden nach %n Tagen gelöscht.</numerusform>
            </translation>
        </message>
        <message>
            <source>Chats here are erased when the app next starts.</source>
            <translation>Chats hier werden beim nächsten Start der App gelöscht.</translation>
        </message>
        <message>
            <source>Archived chats</source>
            <translation>Archivierte Chats</translation>
        </message>
        <message>
            <source>No chats yet.</source>
            <translation>Noch keine Chats.</translation>
        </message>
        <message>
            <source>Archived chats appear here.</source>
            <translation>Archivierte Chats erscheinen hier.</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>Der Papierkorb ist leer.</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>Wiederherstellen</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>Endgültig löschen…</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Umbenennen</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>Lösen</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>Anheften</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplizieren</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>Aus dem Archiv holen</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>Archivieren</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Move to project</source>
            <translation>In Projekt verschieben</translation>
        </message>
        <message>
            <source>Remove from project</source>
            <translation>Aus dem Projekt entfernen</translation>
        </message>
        <message>
            <source>the chat</source>
            <translation>der Chat</translation>
        </message>
        <message>
            <source>this chat</source>
            <translation>dieser Chat</translation>
        </message>
        <message>
            <source>Delete “{title}” forever? This cannot be undone.</source>
            <translation>„{title}“ endgültig löschen? Dies kann nicht rückgängig gemacht werden.</translation>
        </message>
        <message>
            <source>Delete every chat in the trash forever? This cannot be undone.</source>
            <translation>Alle Chats im Papierkorb endgültig löschen? Dies kann nicht rückgängig gemacht werden.</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>Endgültig löschen</translation>
        </message>
    </context>
    <context>
        <name>SessionPromptDialog</name>
        <message>
            <source>System prompt of this chat</source>
            <translation>Systemprompt dieses Chats</translation>
        </message>
        <message>
            <source>the assistant “{name}”</source>
            <translation>den Assistenten „{name}“</translation>
        </message>
        <message>
            <source>the default system prompt (Settings → Preferences)</source>
            <translation>den Standard-Systemprompt (Einstellungen → Einstellungen…)</translation>
        </message>
        <message>
            <source>The new chat</source>
            <translation>Der neue Chat</translation>
        </message>
        <message>
            <source>Use this chat's own system prompt</source>
            <translation>Eigenen Systemprompt für diesen Chat verwenden</translation>
        </message>
        <message>
            <source>Otherwise the chat uses {origin}.</source>
            <translation>Sonst verwendet der Chat {origin}.</translation>
        </message>
        <message>
            <source>Without it, this chat uses {origin}.</source>
            <translation>Ohne ihn verwendet dieser Chat {origin}.</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Systemprompt</translation>
        </message>
        <message>
            <source>Full system prompt</source>
            <translation>Vollständiger Systemprompt</translation>
        </message>
        <message>
            <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
            <translation>Was an das Modell gesendet wird (mit Ihren eigenen Anweisungen, dem Arbeitsordner und dem Datum):</translation>
        </message>
        <message>
            <source>(no system prompt)</source>
            <translation>(kein Systemprompt)</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Follow the system</source>
            <translation>Dem System folgen</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Hell</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Dunkel</translation>
        </message>
        <message>
            <source>High contrast</source>
            <translation>Hoher Kontrast</translation>
        </message>
        <message>
            <source>Leave out the oldest turns</source>
            <translation>Die ältesten Runden weglassen</translation>
        </message>
        <message>
            <source>Replace the oldest turns with a summary</source>
            <translation>Die ältesten Runden durch eine Zusammenfassung ersetzen</translation>
        </message>
        <message>
            <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
            <translation>z. B. http://proxy.example.com:8080 oder socks5://127.0.0.1:1080</translation>
        </message>
        <message>
            <source>The proxy URL cannot contain spaces ({example}).</source>
            <translation>Die Proxy-URL darf keine Leerzeichen enthalten ({example}).</translation>
        </message>
        <message>
            <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
            <translation>Der Proxy muss mit http://, https:// oder socks5:// beginnen ({example}).</translation>
        </message>
        <message>
            <source>The proxy URL needs a host name ({example}).</source>
            <translation>Die Proxy-URL braucht einen Hostnamen ({example}).</translation>
        </message>
        <message>
            <source>The proxy port must be a number from 1 to 65535.</source>
            <translation>Der Proxy-Port muss eine Zahl von 1 bis 65535 sein.</translation>
        </message>
        <message>
            <source>The proxy URL is only scheme://host:port ({example}).</source>
            <translation>Die Proxy-URL besteht nur aus schema://host:port ({example}).</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>Einstellungen</translation>
        </message>
        <message>
            <source>Preferences sections</source>
            <translation>Bereiche der Einstellungen</translation>
        </message>
        <message>
            <source>General</source>
            <translation>Allgemein</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Gedächtnis</translation>
        </message>
        <message>
            <source>Network</source>
            <translation>Netzwerk</translation>
        </message>
        <message>
            <source>Desktop</source>
            <translation>Desktop</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Daten</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>Websuche</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Skills</translation>
        </message>
        <message>
            <source>Usage</source>
            <translation>Nutzung</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Anfrage-Inspektor</translation>
        </message>
        <message>
            <source>Settings error</source>
            <translation>Fehler in den Einstellungen</translation>
        </message>
        <message>
            <source>The assistant new chats start with</source>
            <translation>Der Assistent, mit dem neue Chats beginnen</translation>
        </message>
        <message>
            <source>Added to every chat: who you are, how you like answers…</source>
            <translation>Wird jedem Chat hinzugefügt: wer Sie sind, wie Sie Antworten mögen…</translation>
        </message>
        <message>
            <source>Custom instructions</source>
            <translation>Eigene Anweisungen</translation>
        </message>
        <message>
            <source>Default system prompt</source>
            <translation>Standard-Systemprompt</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Design</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Sprache</translation>
        </message>
        <message>
            <source>Base font size</source>
            <translation>Grundschriftgröße</translation>
        </message>
        <message>
            <source> pt</source>
            <translation> pt</translation>
        </message>
        <message>
            <source>Default</source>
            <translation>Standard</translation>
        </message>
        <message>
            <source>New chats use</source>
            <translation>Neue Chats verwenden</translation>
        </message>
        <message>
            <source>A chat's own prompt (Chat → Edit system prompt…) or its assistant's replaces the default; custom instructions are always added.</source>
            <translation>Der eigene Prompt eines Chats (Chat → Systemprompt bearbeiten…) oder der seines Assistenten ersetzt den Standard; eigene Anweisungen werden immer hinzugefügt.</translation>
        </message>
        <message>
            <source>What happens when a chat no longer fits the model's context window (you are told when it does)</source>
            <translation>Was passiert, wenn ein Chat nicht mehr ins Kontextfenster des Modells passt (Sie werden dann informiert)</translation>
        </message>
        <message>
            <source> days</source>
            <translation> Tage</translation>
        </message>
        <message>
            <source>Erase at the next start</source>
            <translation>Beim nächsten Start löschen</translation>
        </message>
        <message>
            <source>Let the model title new chats</source>
            <translation>Das Modell neue Chats benennen lassen</translation>
        </message>
        <message>
            <source>After a new chat's first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
            <translation>Nach der ersten Antwort eines neuen Chats schreibt sein Modell einen kurzen Titel (eine kleine Anfrage). Aus: Die erste Zeile Ihrer ersten Nachricht bleibt der Titel. Ein von Ihnen gesetzter Titel wird nie ersetzt.</translation>
        </message>
        <message>
            <source>When a chat is too long</source>
            <translation>Wenn ein Chat zu lang ist</translation>
        </message>
        <message>
            <source>Keep deleted chats in the trash</source>
            <translation>Gelöschte Chats im Papierkorb behalten</translation>
        </message>
        <message>
            <source>Titles</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>Titles written by</source>
            <translation>Titel schreibt</translation>
        </message>
        <message>
            <source>Proxy URL</source>
            <translation>Proxy-URL</translation>
        </message>
        <message>
            <source>Empty: the system's settings. http://host:8080, socks5://host:1080</source>
            <translation>Leer: die Systemeinstellungen. http://host:8080, socks5://host:1080</translation>
        </message>
        <message>
            <source>No proxy for</source>
            <translation>Kein Proxy für</translation>
        </message>
        <message>
            <source>localhost,127.0.0.1,.internal.example</source>
            <translation>localhost,127.0.0.1,.internal.example</translation>
        </message>
        <message>
            <source>Request timeout</source>
            <translation>Zeitlimit für Anfragen</translation>
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
            <translation>Gleichzeitige Antworten pro Anbieter</translation>
        </message>
        <message>
            <source>More chats than this asking one provider at once wait their turn</source>
            <translation>Wenn mehr Chats gleichzeitig einen Anbieter fragen, warten die übrigen</translation>
        </message>
        <message>
            <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
            <translation>Der Proxy wird für jede Anfrage der App verwendet: Anbieter, Modelllisten, fetch_url und MCP-Server über HTTP. Benutzer und Passwort können Teil der URL sein (http://benutzer:pass@host:port).</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>Ordner öffnen</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>Datenordner</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir).</source>
            <translation>Portabler Modus (--data-dir).</translation>
        </message>
        <message>
            <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
            <translation>Starten Sie mit --data-dir ORDNER, um die Daten woanders abzulegen.</translation>
        </message>
        <message>
            <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
            <translation>Chats und Einstellungen liegen dort in {database}; Protokolle in {logs}/. {note} API-Schlüssel liegen im Schlüsselbund des Systems, falls vorhanden.</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Kein Assistent</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Message box</source>
            <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
            <translation>Nachrichtenfeld</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>New line</source>
            <translation>Neue Zeile</translation>
        </message>
        <message>
            <source>Stop the answer</source>
            <translation>Antwort stoppen</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Chatliste</translation>
        </message>
        <message>
            <source>Rename the chat</source>
            <translation>Chat umbenennen</translation>
        </message>
        <message>
            <source>Move the chat to the trash</source>
            <translation>Chat in den Papierkorb verschieben</translation>
        </message>
        <message>
            <source>Open the chat</source>
            <translation>Chat öffnen</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Tastenkürzel</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>Wo</translation>
        </message>
        <message>
            <source>What</source>
            <translation>Was</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>Tasten</translation>
        </message>
    </context>
    <context>
        <name>SkillSwitches</name>
        <message>
            <source>Skills</source>
            <translation>Skills</translation>
        </message>
        <message>
            <source>No skills (add some in Preferences → Skills)</source>
            <translation>Keine Skills (in Einstellungen → Skills hinzufügen)</translation>
        </message>
    </context>
    <context>
        <name>SkillsPage</name>
        <message>
            <source>{path} does not exist.</source>
            <extracomment>The page's wording of the errors adding or removing a skill can carry.</extracomment>
            <translation>{path} existiert nicht.</translation>
        </message>
        <message>
            <source>There is no SKILL.md in it.</source>
            <translation>Darin ist keine SKILL.md.</translation>
        </message>
        <message>
            <source>The skill is not valid: {reason}</source>
            <translation>Der Skill ist ungültig: {reason}</translation>
        </message>
        <message>
            <source>The zip is refused: {reason}</source>
            <translation>Das ZIP wird abgelehnt: {reason}</translation>
        </message>
        <message>
            <source>The skill is larger than 50 MB.</source>
            <translation>Der Skill ist größer als 50 MB.</translation>
        </message>
        <message>
            <source>A skill named {name} is already added.</source>
            <translation>Ein Skill namens {name} ist bereits hinzugefügt.</translation>
        </message>
        <message>
            <source>There is no added skill named {name}.</source>
            <translation>Es gibt keinen hinzugefügten Skill namens {name}.</translation>
        </message>
        <message>
            <source>Skills are folders of instructions, scripts and resources the model loads when a task needs them. The model sees each skill's name and description; it reads the rest with the Load skill tool, and runs scripts with Run command (which asks first). A chat or assistant can turn skills off for itself.</source>
            <translation>Skills sind Ordner mit Anleitungen, Skripten und Ressourcen, die das Modell lädt, wenn eine Aufgabe sie braucht. Das Modell sieht Name und Beschreibung jedes Skills; den Rest liest es mit dem Werkzeug „Skill laden“, Skripte führt es mit „Befehl ausführen“ aus (das vorher fragt). Ein Chat oder Assistent kann Skills für sich ausschalten.</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Skills</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>Skill</translation>
        </message>
        <message>
            <source>From</source>
            <translation>Herkunft</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Beschreibung</translation>
        </message>
        <message>
            <source>No skills yet. Add a folder that holds a SKILL.md, or a zip of one.</source>
            <translation>Noch keine Skills. Fügen Sie einen Ordner mit einer SKILL.md hinzu oder ein ZIP davon.</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ordner hinzufügen…</translation>
        </message>
        <message>
            <source>Add zip…</source>
            <translation>ZIP hinzufügen…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Open skills folder</source>
            <translation>Skill-Ordner öffnen</translation>
        </message>
        <message>
            <source>On: offered to every chat</source>
            <translation>Ein: jedem Chat angeboten</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>Arbeitsordner</translation>
        </message>
        <message>
            <source>App</source>
            <translation>App</translation>
        </message>
        <message>
            <source>Cannot be used: {problem}</source>
            <translation>Nicht verwendbar: {problem}</translation>
        </message>
        <message>
            <source>Add a skill folder</source>
            <translation>Skill-Ordner hinzufügen</translation>
        </message>
        <message>
            <source>Add a skill from a zip</source>
            <translation>Skill aus ZIP hinzufügen</translation>
        </message>
        <message>
            <source>Zip archives (*.zip)</source>
            <translation>ZIP-Archive (*.zip)</translation>
        </message>
        <message>
            <source>The skill could not be copied: {reason}</source>
            <translation>Der Skill konnte nicht kopiert werden: {reason}</translation>
        </message>
        <message>
            <source>Remove skill</source>
            <translation>Skill entfernen</translation>
        </message>
        <message>
            <source>Remove the skill {name}? Its folder is deleted.</source>
            <translation>Skill {name} entfernen? Sein Ordner wird gelöscht.</translation>
        </message>
        <message>
            <source>The skill could not be removed: {reason}</source>
            <translation>Der Skill konnte nicht entfernt werden: {reason}</translation>
        </message>
    </context>
    <context>
        <name>SlashPrompts</name>
        <message>
            <source>Prompts from MCP servers</source>
            <translation>Prompts von MCP-Servern</translation>
        </message>
        <message>
            <source>From MCP server {0}</source>
            <translation>Vom MCP-Server {0}</translation>
        </message>
        <message>
            <source>The prompt /{0} failed: {1}</source>
            <translation>Der Prompt /{0} ist fehlgeschlagen: {1}</translation>
        </message>
    </context>
    <context>
        <name>SourcesView</name>
        <message>
            <source>page %1, line %2</source>
            <translation>Seite %1, Zeile %2</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>Seite %1</translation>
        </message>
        <message>
            <source>line %1</source>
            <translation>Zeile %1</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Quellen</translation>
        </message>
        <message>
            <source>Source %1: %2</source>
            <translation>Quelle %1: %2</translation>
        </message>
    </context>
    <context>
        <name>Spinner</name>
        <message>
            <source>Running</source>
            <translation>Läuft</translation>
        </message>
    </context>
    <context>
        <name>StarterCard</name>
        <message>
            <source>Add</source>
            <extracomment>Cards per row at the dialog's usual width (one column when it is narrow).</extracomment>
            <translation>Hinzufügen</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>{name} hinzufügen</translation>
        </message>
        <message>
            <source>Added</source>
            <translation>Hinzugefügt</translation>
        </message>
        <message>
            <source>Added as “{name}”; edit it in Assistants</source>
            <translation>Als „{name}“ hinzugefügt; unter Assistenten bearbeiten</translation>
        </message>
    </context>
    <context>
        <name>StartupSkeleton</name>
        <message>
            <source>Message</source>
            <extracomment>Enter was pressed: send it once the app can the box had the keyboard focus called at Enter once a question can be sent before the window is built</extracomment>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Type a message… (it is sent once the app has loaded)</source>
            <translation>Nachricht eingeben… (sie wird gesendet, sobald die App geladen ist)</translation>
        </message>
        <message>
            <source>Chats</source>
            <extracomment>clicked before the app had loaded listed by :meth:`fill` pressed in the window before :meth:`fill`</extracomment>
            <translation>Chats</translation>
        </message>
        <message>
            <source>+  New chat</source>
            <translation>+  Neuer Chat</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Werkzeugaktivität</translation>
        </message>
        <message>
            <source>Opening…</source>
            <translation>Wird geöffnet…</translation>
        </message>
        <message>
            <source>Opening your chats…</source>
            <translation>Ihre Chats werden geöffnet…</translation>
        </message>
    </context>
    <context>
        <name>SyncDialog</name>
        <message>
            <source>saved in the keyring — type to replace</source>
            <translation>im Schlüsselbund gespeichert — zum Ersetzen tippen</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>Passwort</translation>
        </message>
        <message>
            <source>Secret access key</source>
            <translation>Geheimer Zugriffsschlüssel</translation>
        </message>
        <message>
            <source>User name</source>
            <translation>Benutzername</translation>
        </message>
        <message>
            <source>Access key ID</source>
            <translation>Zugriffsschlüssel-ID</translation>
        </message>
        <message>
            <source>Enter the password.</source>
            <translation>Geben Sie das Passwort ein.</translation>
        </message>
        <message>
            <source>Enter the user name.</source>
            <translation>Geben Sie den Benutzernamen ein.</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>Synchronisierung</translation>
        </message>
        <message>
            <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
            <translation>Synchronisieren Sie Chats, Assistenten und Einstellungen mit Ihren anderen Computern über Speicher, der Ihnen gehört. Alles wird hier mit Ihrer Passphrase verschlüsselt, bevor es den Computer verlässt; API-Schlüssel verlassen ihn nie.</translation>
        </message>
        <message>
            <source>Sync target</source>
            <translation>Sync-Ziel</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>Ordner…</translation>
        </message>
        <message>
            <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
            <translation>Einen Ordner wählen, den ein anderes Programm abgleicht (Syncthing, Dropbox, iCloud Drive, OneDrive)</translation>
        </message>
        <message>
            <source>AWS when empty; e.g. https://minio.example:9000</source>
            <translation>Leer: AWS; z. B. https://minio.example:9000</translation>
        </message>
        <message>
            <source>us-east-1</source>
            <translation>us-east-1</translation>
        </message>
        <message>
            <source>the same passphrase again</source>
            <translation>dieselbe Passphrase noch einmal</translation>
        </message>
        <message>
            <source>the same on every computer; it cannot be recovered</source>
            <translation>auf jedem Computer dieselbe; sie kann nicht wiederhergestellt werden</translation>
        </message>
        <message>
            <source>Sync automatically (after changes and every 5 minutes)</source>
            <translation>Automatisch synchronisieren (nach Änderungen und alle 5 Minuten)</translation>
        </message>
        <message>
            <source>Target</source>
            <translation>Ziel</translation>
        </message>
        <message>
            <source>S3 endpoint</source>
            <translation>S3-Endpunkt</translation>
        </message>
        <message>
            <source>S3 region</source>
            <translation>S3-Region</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>Passphrase</translation>
        </message>
        <message>
            <source>Repeat</source>
            <translation>Wiederholen</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Verbindung testen</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>Jetzt synchronisieren</translation>
        </message>
        <message>
            <source>{user} (from the URL)</source>
            <translation>{user} (aus der URL)</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>Sync-Ordner wählen</translation>
        </message>
        <message>
            <source>Enter where to sync: {forms}.</source>
            <translation>Geben Sie an, wohin synchronisiert wird: {forms}.</translation>
        </message>
        <message>
            <source>Unknown target: use {forms}.</source>
            <translation>Unbekanntes Ziel: Verwenden Sie {forms}.</translation>
        </message>
        <message>
            <source>Enter the S3 access key ID.</source>
            <translation>Geben Sie die S3-Zugriffsschlüssel-ID ein.</translation>
        </message>
        <message>
            <source>Enter the S3 secret access key.</source>
            <translation>Geben Sie den geheimen S3-Zugriffsschlüssel ein.</translation>
        </message>
        <message>
            <source>Choose a passphrase (the same on every computer).</source>
            <translation>Wählen Sie eine Passphrase (auf jedem Computer dieselbe).</translation>
        </message>
        <message>
            <source>The two passphrases differ.</source>
            <translation>Die beiden Passphrasen unterscheiden sich.</translation>
        </message>
        <message>
            <source>Testing the connection…</source>
            <translation>Verbindung wird getestet…</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Synchronisiere…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>Synchronisierung fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>Status: {status}</source>
            <translation>Status: {status}</translation>
        </message>
    </context>
    <context>
        <name>SyncScheduler</name>
        <message>
            <source>just now</source>
            <translation>gerade eben</translation>
        </message>
        <message>
            <source>{minutes} min ago</source>
            <translation>vor {minutes} min</translation>
        </message>
        <message>
            <source>{hours} h ago</source>
            <translation>vor {hours} h</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Synchronisiere…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>Synchronisierung fehlgeschlagen: {error}</translation>
        </message>
        <message>
            <source>Not synced yet</source>
            <translation>Noch nicht synchronisiert</translation>
        </message>
        <message>
            <source>Synced {when}</source>
            <translation>Synchronisiert {when}</translation>
        </message>
    </context>
    <context>
        <name>SyncStatusLabel</name>
        <message>
            <source>Sync: click for Settings → Sync</source>
            <translation>Sync: klicken für Einstellungen → Synchronisierung</translation>
        </message>
    </context>
    <context>
        <name>SyncTexts</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>vor %n Tag</numerusform>
                <numerusform>vor %n Tagen</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes waiting</source>
            <translation>
                <numerusform>%n Änderung wartet</numerusform>
                <numerusform>%n Änderungen warten</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TemporaryBanner</name>
        <message>
            <source>Temporary chat: it uses no memory and is not kept once you leave it.</source>
            <translation>Temporärer Chat: Er verwendet kein Gedächtnis und wird nicht behalten, sobald du ihn verlässt.</translation>
        </message>
    </context>
    <context>
        <name>TitleModelCombo</name>
        <message>
            <source>Model that writes titles</source>
            <translation>Modell, das die Titel schreibt</translation>
        </message>
        <message>
            <source>The chat's own model, or one model for every title (a small, quick one is enough)</source>
            <translation>Das eigene Modell des Chats oder ein Modell für alle Titel (ein kleines, schnelles genügt)</translation>
        </message>
        <message>
            <source>The chat's model</source>
            <translation>Das Modell des Chats</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} bei {provider}</translation>
        </message>
    </context>
    <context>
        <name>ToolActivity</name>
        <message>
            <source>{model} cannot use tools: none are sent to it</source>
            <translation>{model} kann keine Werkzeuge nutzen: Es werden keine gesendet</translation>
        </message>
    </context>
    <context>
        <name>ToolCallCard</name>
        <message>
            <source>… starting</source>
            <translation>… startet</translation>
        </message>
        <message>
            <source>waiting for approval</source>
            <translation>wartet auf Zustimmung</translation>
        </message>
        <message>
            <source>running</source>
            <translation>läuft</translation>
        </message>
        <message>
            <source>✓ succeeded</source>
            <translation>✓ erfolgreich</translation>
        </message>
        <message>
            <source>✗ failed</source>
            <translation>✗ fehlgeschlagen</translation>
        </message>
        <message>
            <source>⊘ denied</source>
            <translation>⊘ abgelehnt</translation>
        </message>
        <message>
            <source>■ cancelled</source>
            <translation>■ abgebrochen</translation>
        </message>
        <message>
            <source>Show details of {tool}</source>
            <translation>Details zu {tool} anzeigen</translation>
        </message>
        <message>
            <source>pending</source>
            <translation>ausstehend</translation>
        </message>
        <message>
            <source>Output of {tool}</source>
            <translation>Ausgabe von {tool}</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Stop this call; the assistant is told it was cancelled</source>
            <translation>Diesen Aufruf stoppen; der Assistent erfährt, dass er abgebrochen wurde</translation>
        </message>
        <message>
            <source>Cancel {tool}</source>
            <translation>{tool} abbrechen</translation>
        </message>
        <message>
            <source>Details of {tool}</source>
            <translation>Details zu {tool}</translation>
        </message>
        <message>
            <source>waiting {time} · review it above</source>
            <translation>wartet seit {time} · oben prüfen</translation>
        </message>
        <message>
            <source>… [more output in the result]</source>
            <translation>… [weitere Ausgabe im Ergebnis]</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumente</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vorschau</translation>
        </message>
        <message>
            <source>Result · {status}</source>
            <translation>Ergebnis · {status}</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Weniger anzeigen</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Alles anzeigen</translation>
        </message>
        <message>
            <source>Image returned by {tool}</source>
            <translation>Von {tool} zurückgegebenes Bild</translation>
        </message>
        <message>
            <source>[image: {type}] (cannot be shown)</source>
            <translation>[Bild: {type}] (kann nicht angezeigt werden)</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>Wird abgebrochen…</translation>
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
            <translation>Exit-Code {code}</translation>
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
            <translation>wartet auf deine Freigabe</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>läuft…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>fehlgeschlagen</translation>
        </message>
        <message>
            <source>some failed</source>
            <translation>einige fehlgeschlagen</translation>
        </message>
        <message>
            <source>done</source>
            <translation>fertig</translation>
        </message>
        <message>
            <source>running</source>
            <translation>läuft</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Weniger anzeigen</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Alles anzeigen</translation>
        </message>
        <message>
            <source>Show the tool calls of this answer</source>
            <translation>Die Werkzeugaufrufe dieser Antwort anzeigen</translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n Werkzeugaufruf</numerusform>
                <numerusform>%n Werkzeugaufrufe</numerusform>
            </translation>
        </message>
        <message>
            <source>Tool call details</source>
            <translation>Details der Werkzeugaufrufe</translation>
        </message>
        <message>
            <source>{count} more characters</source>
            <translation>{count} weitere Zeichen</translation>
        </message>
    </context>
    <context>
        <name>ToolNames</name>
        <message>
            <source>Read file</source>
            <translation>Datei lesen</translation>
        </message>
        <message>
            <source>List folder</source>
            <translation>Ordner auflisten</translation>
        </message>
        <message>
            <source>Search files</source>
            <translation>Dateien durchsuchen</translation>
        </message>
        <message>
            <source>Write file</source>
            <translation>Datei schreiben</translation>
        </message>
        <message>
            <source>Create file</source>
            <translation>Datei erstellen</translation>
        </message>
        <message>
            <source>Edit file</source>
            <translation>Datei bearbeiten</translation>
        </message>
        <message>
            <source>Run command</source>
            <translation>Befehl ausführen</translation>
        </message>
        <message>
            <source>Fetch web page</source>
            <translation>Webseite abrufen</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Im Web suchen</translation>
        </message>
        <message>
            <source>Search knowledge</source>
            <translation>Wissen durchsuchen</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>Merken</translation>
        </message>
        <message>
            <source>Load skill</source>
            <translation>Skill laden</translation>
        </message>
    </context>
    <context>
        <name>ToolSidebar</name>
        <message>
            <source>All calls</source>
            <translation>Alle Aufrufe</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>Wartend</translation>
        </message>
        <message>
            <source>No waiting calls.</source>
            <translation>Keine wartenden Aufrufe.</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>Läuft</translation>
        </message>
        <message>
            <source>No running calls.</source>
            <translation>Keine laufenden Aufrufe.</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>Erfolgreich</translation>
        </message>
        <message>
            <source>No succeeded calls.</source>
            <translation>Keine erfolgreichen Aufrufe.</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fehlgeschlagen</translation>
        </message>
        <message>
            <source>No failed calls.</source>
            <translation>Keine fehlgeschlagenen Aufrufe.</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Abgelehnt</translation>
        </message>
        <message>
            <source>No denied calls.</source>
            <translation>Keine abgelehnten Aufrufe.</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Abgebrochen</translation>
        </message>
        <message>
            <source>No cancelled calls.</source>
            <translation>Keine abgebrochenen Aufrufe.</translation>
        </message>
        <message>
            <source>{arrow} Turn {number} · {calls}</source>
            <translation>{arrow} Runde {number} · {calls}</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Werkzeugaktivität</translation>
        </message>
        <message>
            <source>Show calls</source>
            <translation>Aufrufe anzeigen</translation>
        </message>
        <message>
            <source>Show only calls with this status</source>
            <translation>Nur Aufrufe mit diesem Status anzeigen</translation>
        </message>
        <message>
            <source>Tool calls the assistant makes appear here.</source>
            <translation>Werkzeugaufrufe des Assistenten erscheinen hier.</translation>
        </message>
        <message>
            <source>Turn {number}</source>
            <translation>Runde {number}</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>abgebrochen</translation>
        </message>
        <message numerus="yes">
            <source>%n calls</source>
            <translation>
                <numerusform>%n Aufruf</numerusform>
                <numerusform>%n Aufrufe</numerusform>
            </translation>
        </message>
        <message>
            <source>awaiting_approval</source>
            <translation>wartet auf Zustimmung</translation>
        </message>
    </context>
    <context>
        <name>ToolsDialog</name>
        <message>
            <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
            <translation>&lt;b&gt;Erlauben&lt;/b&gt; führt ein Werkzeug sofort aus, &lt;b&gt;Fragen&lt;/b&gt; zeigt Ihnen jeden Aufruf (mit Diff, Befehl oder URL), bevor er läuft, &lt;b&gt;Ablehnen&lt;/b&gt; führt es nie aus und bietet es nicht an. Nur lesende Werkzeuge stehen standardmäßig auf Erlauben; Dateien schreiben, Befehle ausführen und Webseiten abrufen auf Fragen.</translation>
        </message>
        <message>
            <source>Allow</source>
            <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
            <translation>Erlauben</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Fragen</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>built-in</source>
            <translation>integriert</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Werkzeuge</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Werkzeug</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Quelle</translation>
        </message>
        <message>
            <source>On</source>
            <translation>An</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Richtlinie</translation>
        </message>
        <message>
            <source>Tools and their policies</source>
            <translation>Werkzeuge und ihre Richtlinien</translation>
        </message>
        <message>
            <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
            <translation>&lt;b&gt;Immer erlaubt&lt;/b&gt; — diese Werkzeuge laufen in jedem Chat ohne Nachfrage, bis Sie das widerrufen.</translation>
        </message>
        <message>
            <source>Calls</source>
            <translation>Aufrufe</translation>
        </message>
        <message>
            <source>Since</source>
            <translation>Seit</translation>
        </message>
        <message>
            <source>Always allowed tools</source>
            <translation>Immer erlaubte Werkzeuge</translation>
        </message>
        <message>
            <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
            <translation>Kein Werkzeug ist immer erlaubt. Wählen Sie bei einer Zustimmung „Immer erlauben“, um eines hinzuzufügen.</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>Vergessen</translation>
        </message>
        <message>
            <source>Ask again in this chat for these tools</source>
            <translation>In diesem Chat für diese Werkzeuge wieder fragen</translation>
        </message>
        <message>
            <source>Offered to the assistant (each chat can still switch it off in the composer's tools menu)</source>
            <translation>Dem Assistenten angeboten (jeder Chat kann es im Werkzeugmenü des Eingabefelds ausschalten)</translation>
        </message>
        <message>
            <source>Switch MCP tools on or off in Settings → MCP servers</source>
            <translation>MCP-Werkzeuge unter Einstellungen → MCP-Server ein- oder ausschalten</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Richtlinie für {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Standard ({policy})</translation>
        </message>
        <message>
            <source>All calls</source>
            <translation>Alle Aufrufe</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Widerrufen</translation>
        </message>
        <message>
            <source>Revoke {tool} {calls}</source>
            <translation>{tool} {calls} widerrufen</translation>
        </message>
        <message>
            <source>Ask again before {tool} runs</source>
            <translation>Vor dem Ausführen von {tool} wieder fragen</translation>
        </message>
        <message>
            <source>Allowed for this chat: </source>
            <translation>Für diesen Chat erlaubt: </translation>
        </message>
        <message>
            <source>No tool is allowed just for this chat.</source>
            <translation>Kein Werkzeug ist nur für diesen Chat erlaubt.</translation>
        </message>
        <message>
            <source>This chat's commands may use the network.</source>
            <translation>Die Befehle dieses Chats dürfen das Netzwerk nutzen.</translation>
        </message>
        <message>
            <source>Revoked: {tool} will ask again before it runs.</source>
            <translation>Widerrufen: {tool} fragt vor dem Ausführen wieder.</translation>
        </message>
        <message>
            <source>This chat will ask again.</source>
            <translation>Dieser Chat fragt wieder.</translation>
        </message>
    </context>
    <context>
        <name>TopBar</name>
        <message>
            <source>Provider</source>
            <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app's name (it is in the window's title).</extracomment>
            <translation>Anbieter</translation>
        </message>
        <message>
            <source>The provider of this chat</source>
            <translation>Der Anbieter dieses Chats</translation>
        </message>
        <message>
            <source>No provider</source>
            <translation>Kein Anbieter</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Chat settings: model, temperature, max tokens, reasoning</source>
            <translation>Chat-Einstellungen: Modell, Temperatur, max. Tokens, Schlussfolgern</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>Chat-Einstellungen</translation>
        </message>
        <message>
            <source>Providers…</source>
            <translation>Anbieter…</translation>
        </message>
        <message>
            <source>Add or edit providers</source>
            <translation>Anbieter hinzufügen oder bearbeiten</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>Anbieter</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Werkzeugaktivität</translation>
        </message>
        <message>
            <source>Show or hide the tool activity panel (Ctrl+B)</source>
            <translation>Werkzeugaktivität ein- oder ausblenden (Strg+B)</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} bei {provider}</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>Modell wählen</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Modell wählen…</translation>
        </message>
        <message>
            <source>Click to search and switch models</source>
            <translation>Klicken, um Modelle zu suchen und zu wechseln</translation>
        </message>
        <message>
            <source> (this chat sets its own)</source>
            <translation> (dieser Chat hat eigene)</translation>
        </message>
        <message>
            <source>no provider</source>
            <translation>kein Anbieter</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>kein Modell</translation>
        </message>
    </context>
    <context>
        <name>TrustFields</name>
        <message>
            <source>Run commands in a sandbox</source>
            <translation>Befehle in einer Sandbox ausführen</translation>
        </message>
        <message>
            <source>Commands see the system read-only, may write only in the workspace and a private temporary folder, and never see this app's data (Linux: bubblewrap; macOS: sandbox-exec). Without a sandbox on this system they run as you.</source>
            <translation>Befehle sehen das System nur lesend, dürfen nur im Arbeitsordner und in einem eigenen temporären Ordner schreiben und sehen nie die Daten dieser App (Linux: bubblewrap; macOS: sandbox-exec). Ohne Sandbox auf diesem System laufen sie als Sie.</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>Befehlen in der Sandbox das Netzwerk erlauben</translation>
        </message>
        <message>
            <source>Off: a command cannot reach the internet or servers on this computer (downloads, package installs and git push fail).</source>
            <translation>Aus: Ein Befehl erreicht weder das Internet noch Server auf diesem Computer (Downloads, Paketinstallationen und git push schlagen fehl).</translation>
        </message>
        <message>
            <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
            <translation>z. B. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</translation>
        </message>
        <message>
            <source>Local or private hosts fetch_url may read</source>
            <translation>Lokale oder private Hosts, die fetch_url lesen darf</translation>
        </message>
        <message>
            <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
            <translation>fetch_url verweigert diesen Computer, das lokale Netz und Cloud-Metadatenadressen, damit eine Webseite den Assistenten nicht dazu bringen kann, sie zu lesen. Hier aufgeführte Hosts, .domain-Endungen, Adressen oder Netze sind erlaubt.</translation>
        </message>
        <message>
            <source>e.g. JAVA_HOME, NODE_*</source>
            <translation>z. B. JAVA_HOME, NODE_*</translation>
        </message>
        <message>
            <source>Environment variables run_command passes on</source>
            <translation>Umgebungsvariablen, die run_command weitergibt</translation>
        </message>
        <message>
            <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
            <translation>Befehle erhalten eine bereinigte Umgebung (PATH, HOME, Sprache…). Nennen Sie hier weitere Variablen oder Präfixe mit * am Ende; ein Präfix bringt nie Schlüssel, Tokens oder Passwörter mit.</translation>
        </message>
        <message>
            <source>Hosts fetch_url may read:</source>
            <translation>Hosts, die fetch_url lesen darf:</translation>
        </message>
        <message>
            <source>Variables for commands:</source>
            <translation>Variablen für Befehle:</translation>
        </message>
        <message>
            <source>Not a host, address or network: {entries}</source>
            <translation>Kein Host, keine Adresse und kein Netz: {entries}</translation>
        </message>
        <message>
            <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
            <translation>Kein Variablenname (Buchstaben, Ziffern und _, oder ein Präfix mit * am Ende): {entries}</translation>
        </message>
    </context>
    <context>
        <name>TurnStatus</name>
        <message>
            <source>Rate limited</source>
            <translation>Ratenlimit erreicht</translation>
        </message>
        <message>
            <source>Overloaded</source>
            <translation>Überlastet</translation>
        </message>
        <message>
            <source>Service unavailable</source>
            <translation>Dienst nicht verfügbar</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>Zeitüberschreitung</translation>
        </message>
        <message>
            <source>Server error ({reason})</source>
            <translation>Serverfehler ({reason})</translation>
        </message>
        <message>
            <source>Could not connect ({reason})</source>
            <translation>Keine Verbindung möglich ({reason})</translation>
        </message>
        <message>
            <source>retry {number}</source>
            <translation>Versuch {number}</translation>
        </message>
        <message>
            <source>retrying in {seconds} s</source>
            <translation>neuer Versuch in {seconds} s</translation>
        </message>
        <message>
            <source>retrying now</source>
            <translation>neuer Versuch jetzt</translation>
        </message>
        <message>
            <source>{reason} — {wait} ({count})</source>
            <translation>{reason} — {wait} ({count})</translation>
        </message>
        <message>
            <source>Answer status</source>
            <translation>Antwortstatus</translation>
        </message>
        <message>
            <source>Thinking…  </source>
            <translation>Denkt nach…  </translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Stop this answer</source>
            <translation>Diese Antwort stoppen</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>Einmal erlauben</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Diesen Aufruf jetzt ausführen; beim nächsten Mal wieder fragen</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>Für diesen Chat erlauben</translation>
        </message>
        <message>
            <source>Do not ask again in this chat</source>
            <translation>In diesem Chat nicht mehr fragen</translation>
        </message>
        <message>
            <source>Always allow</source>
            <translation>Immer erlauben</translation>
        </message>
        <message>
            <source>Never ask again, in any chat</source>
            <translation>Nie wieder fragen, in keinem Chat</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told</source>
            <translation>Nicht ausführen; der Assistent erfährt es</translation>
        </message>
        <message>
            <source>Allow network for this chat</source>
            <translation>Netzwerk für diesen Chat erlauben</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on</source>
            <translation>Die Befehle dieses Chats dürfen ab jetzt das Netzwerk nutzen</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>Fortfahren</translation>
        </message>
        <message>
            <source>Let the assistant use tools for more rounds</source>
            <translation>Den Assistenten weitere Runden Werkzeuge nutzen lassen</translation>
        </message>
        <message>
            <source>Stop here</source>
            <translation>Hier aufhören</translation>
        </message>
        <message>
            <source>End the answer with what it has so far</source>
            <translation>Die Antwort mit dem bisherigen Stand beenden</translation>
        </message>
        <message>
            <source>Waiting for your approval: {tool}</source>
            <translation>Wartet auf Ihre Zustimmung: {tool}</translation>
        </message>
        <message>
            <source>Waiting for your approval ({number} of {count}): {tool}</source>
            <translation>Wartet auf deine Freigabe ({number} von {count}): {tool}</translation>
        </message>
        <message numerus="yes">
            <source>The assistant has used tools for %n round(s). Let it continue?</source>
            <translation>
                <numerusform>Der Assistent hat %n Runde lang Werkzeuge genutzt. Weitermachen lassen?</numerusform>
                <numerusform>Der Assistent hat %n Runden lang Werkzeuge genutzt. Weitermachen lassen?</numerusform>
            </translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>Warte, bis eine andere Antwort dieses Anbieters fertig ist…</translation>
        </message>
        <message>
            <source>Also waiting ({number} of {count}): {tool}</source>
            <translation>Wartet ebenfalls ({number} von {count}): {tool}</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Denkt nach</translation>
        </message>
    </context>
    <context>
        <name>UndoBar</name>
        <message>
            <source>Undo</source>
            <translation>Rückgängig</translation>
        </message>
        <message>
            <source>Bring the chat back from the trash</source>
            <translation>Chat aus dem Papierkorb zurückholen</translation>
        </message>
        <message>
            <source>Moved “{title}” to the trash</source>
            <translation>„{title}“ in den Papierkorb verschoben</translation>
        </message>
        <message numerus="yes">
            <source>Moved %n chats to the trash</source>
            <translation>
                <numerusform>%n Chat in den Papierkorb verschoben</numerusform>
                <numerusform>%n Chats in den Papierkorb verschoben</numerusform>
            </translation>
        </message>
        <message>
            <source>Undo this turn's changes</source>
            <translation>Änderungen dieser Runde rückgängig machen</translation>
        </message>
        <message>
            <source>Put back the files the assistant wrote in its last turn in this chat</source>
            <translation>Die Dateien wiederherstellen, die der Assistent in seiner letzten Runde in diesem Chat geschrieben hat</translation>
        </message>
        <message numerus="yes">
            <source>…and %n more</source>
            <translation>
                <numerusform>…und %n weitere</numerusform>
                <numerusform>…und %n weitere</numerusform>
            </translation>
        </message>
        <message>
            <source>Put back these files as they were before the assistant's last turn? Files it created are deleted.

{files}</source>
            <translation>Diese Dateien auf den Stand vor der letzten Runde des Assistenten zurücksetzen? Von ihm erstellte Dateien werden gelöscht.

{files}</translation>
        </message>
        <message>
            <source>Nothing was undone: files {reason}</source>
            <translation>Nichts wurde rückgängig gemacht: Dateien {reason}</translation>
        </message>
        <message>
            <source>Nothing was undone: {reason}</source>
            <translation>Nichts wurde rückgängig gemacht: {reason}</translation>
        </message>
        <message numerus="yes">
            <source>Undone: %n file(s) put back</source>
            <translation>
                <numerusform>Rückgängig gemacht: %n Datei wiederhergestellt</numerusform>
                <numerusform>Rückgängig gemacht: %n Dateien wiederhergestellt</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n deleted</source>
            <translation>
                <numerusform>%n gelöscht</numerusform>
                <numerusform>%n gelöscht</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UpdateDialog</name>
        <message>
            <source>Update available</source>
            <translation>Update verfügbar</translation>
        </message>
        <message>
            <source>Version {new} is available (you have {current}).</source>
            <translation>Version {new} ist verfügbar (Sie haben {current}).</translation>
        </message>
        <message>
            <source>No release notes.</source>
            <translation>Keine Versionshinweise.</translation>
        </message>
        <message>
            <source>Release notes</source>
            <translation>Versionshinweise</translation>
        </message>
        <message>
            <source>Download: {file}</source>
            <translation>Download: {file}</translation>
        </message>
        <message>
            <source>No installer for this system in this release: the release page lists what there is.</source>
            <translation>Diese Version enthält kein Installationsprogramm für dieses System: Die Release-Seite listet auf, was es gibt.</translation>
        </message>
        <message>
            <source>&amp;Download</source>
            <translation>&amp;Herunterladen</translation>
        </message>
        <message>
            <source>Release &amp;page</source>
            <translation>Release-&amp;Seite</translation>
        </message>
    </context>
    <context>
        <name>UpdateNotice</name>
        <message>
            <source>Version {version} is available</source>
            <translation>Version {version} ist verfügbar</translation>
        </message>
        <message>
            <source>See what is new and download it</source>
            <translation>Neuerungen ansehen und herunterladen</translation>
        </message>
    </context>
    <context>
        <name>UsagePage</name>
        <message>
            <source>Period</source>
            <extracomment>One plain thread for the page's reads (not the event loop's default executor: under qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).</extracomment>
            <translation>Zeitraum</translation>
        </message>
        <message>
            <source>Last 7 days</source>
            <translation>Letzte 7 Tage</translation>
        </message>
        <message>
            <source>Last 30 days</source>
            <translation>Letzte 30 Tage</translation>
        </message>
        <message>
            <source>All time</source>
            <translation>Gesamter Zeitraum</translation>
        </message>
        <message>
            <source>Usage per model</source>
            <translation>Nutzung pro Modell</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Answers</source>
            <translation>Antworten</translation>
        </message>
        <message>
            <source>Tokens in</source>
            <translation>Tokens rein</translation>
        </message>
        <message>
            <source>Tokens out</source>
            <translation>Tokens raus</translation>
        </message>
        <message>
            <source>Cost</source>
            <translation>Kosten</translation>
        </message>
        <message>
            <source>Median tok/s</source>
            <translation>Median Tok./s</translation>
        </message>
        <message>
            <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
            <translation>Jede gespeicherte Antwort zählt, in jedem Chat und jeder Version (auch im Papierkorb). Kosten sind die Angaben des Anbieters, sonst aus den Modellpreisen geschätzt (Einstellungen → Modellpreise); „—“: kein Preis bekannt, „≥“: für einige Tokens fehlt er. Geschwindigkeiten sind Tokens pro Sekunde während des Eintreffens der Antwort.</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Wird gelesen…</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>Gesamt</translation>
        </message>
    </context>
    <context>
        <name>UsageText</name>
        <message>
            <source>{input} in · {output} out</source>
            <extracomment>Where a view gets the user's model prices from (they change in Settings).</extracomment>
            <translation>{input} rein · {output} raus</translation>
        </message>
        <message>
            <source> ({count} reasoning)</source>
            <translation> ({count} Schlussfolgern)</translation>
        </message>
        <message>
            <source> · {seconds} s</source>
            <translation> · {seconds} s</translation>
        </message>
        <message>
            <source> · {rate} tok/s</source>
            <translation> · {rate} Tok./s</translation>
        </message>
        <message>
            <source>Tokens for this answer: prompt in, generated out</source>
            <translation>Tokens dieser Antwort: Prompt rein, Erzeugtes raus</translation>
        </message>
        <message>
            <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
            <translation>≈: aus dem Text geschätzt (der Anbieter hat keine Zahlen geschickt: die Antwort wurde gestoppt oder ist fehlgeschlagen)</translation>
        </message>
        <message>
            <source>First token after {seconds} s</source>
            <translation>Erstes Token nach {seconds} s</translation>
        </message>
        <message>
            <source>{rate} tokens per second</source>
            <translation>{rate} Tokens pro Sekunde</translation>
        </message>
        <message>
            <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
            <translation>Kosten etwa {cost} (vom Anbieter gemeldet, sonst aus den Modellpreisen)</translation>
        </message>
        <message>
            <source>No price known for this model (Settings → Model prices)</source>
            <translation>Für dieses Modell ist kein Preis bekannt (Einstellungen → Modellpreise)</translation>
        </message>
        <message>
            <source>tokens {input} in · {output} out</source>
            <translation>Tokens {input} rein · {output} raus</translation>
        </message>
        <message>
            <source> ({count} thinking)</source>
            <translation> ({count} Nachdenken)</translation>
        </message>
        <message>
            <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
            <translation>Dieser Chat: {input} Eingabetokens ({cached} gecacht), {output} Ausgabetokens ({thinking} Nachdenken)</translation>
        </message>
        <message>
            <source>, about {cost}</source>
            <translation>, etwa {cost}</translation>
        </message>
        <message>
            <source>, no price known for this model</source>
            <translation>, für dieses Modell ist kein Preis bekannt</translation>
        </message>
    </context>
    <context>
        <name>VirtualColumn</name>
        <message>
            <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
            <translation>Fragen Sie irgendetwas. Eingabe sendet, Umschalt+Eingabe beginnt eine neue Zeile.</translation>
        </message>
        <message>
            <source>↓  Jump to latest</source>
            <translation>↓  Zum Neuesten</translation>
        </message>
    </context>
    <context>
        <name>Voice</name>
        <message>
            <source>No microphone could be opened. Connect one, or allow this app to use the microphone in the system's privacy settings.</source>
            <translation>Es konnte kein Mikrofon geöffnet werden. Schließen Sie eines an oder erlauben Sie dieser App das Mikrofon in den Datenschutzeinstellungen des Systems.</translation>
        </message>
        <message>
            <source>No sound output could be opened, so nothing can be read aloud here.</source>
            <translation>Es konnte keine Tonausgabe geöffnet werden, daher kann hier nichts vorgelesen werden.</translation>
        </message>
        <message>
            <source>This system has no speech engine. Install espeak-ng, or set a speech model in Settings.</source>
            <translation>Dieses System hat keine Sprachausgabe. Installieren Sie espeak-ng oder legen Sie in den Einstellungen ein Sprachmodell fest.</translation>
        </message>
        <message>
            <source>Set a transcription model in Settings to dictate.</source>
            <translation>Legen Sie in den Einstellungen ein Transkriptionsmodell fest, um zu diktieren.</translation>
        </message>
        <message>
            <source>This answer has no text to read aloud.</source>
            <translation>Diese Antwort hat keinen Text zum Vorlesen.</translation>
        </message>
        <message>
            <source>The speech audio could not be played.</source>
            <translation>Die Sprachausgabe konnte nicht abgespielt werden.</translation>
        </message>
        <message>
            <source>Nothing was recorded.</source>
            <translation>Es wurde nichts aufgenommen.</translation>
        </message>
    </context>
    <context>
        <name>VoiceSettings</name>
        <message>
            <source>Provider that reads aloud</source>
            <translation>Anbieter, der vorliest</translation>
        </message>
        <message>
            <source>Speech model</source>
            <translation>Sprachmodell</translation>
        </message>
        <message>
            <source>Empty: the system's voice. e.g. gpt-4o-mini-tts</source>
            <translation>Leer: die Stimme des Systems. z. B. gpt-4o-mini-tts</translation>
        </message>
        <message>
            <source>Voice</source>
            <translation>Stimme</translation>
        </message>
        <message>
            <source>Provider that writes dictation</source>
            <translation>Anbieter, der Diktate aufschreibt</translation>
        </message>
        <message>
            <source>Transcription model</source>
            <translation>Transkriptionsmodell</translation>
        </message>
        <message>
            <source>Empty: no dictation. e.g. whisper-1</source>
            <translation>Leer: kein Diktat. z. B. whisper-1</translation>
        </message>
        <message>
            <source>Read aloud on</source>
            <translation>Vorlesen über</translation>
        </message>
        <message>
            <source>Dictation on</source>
            <translation>Diktat über</translation>
        </message>
        <message>
            <source>The chat's provider</source>
            <translation>Der Anbieter des Chats</translation>
        </message>
    </context>
    <context>
        <name>WebSearchSettings</name>
        <message>
            <source>Search service</source>
            <translation>Suchdienst</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Keine</translation>
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
            <translation>Adresse des Suchdienstes</translation>
        </message>
        <message>
            <source>Search service API key</source>
            <translation>API-Schlüssel des Suchdienstes</translation>
        </message>
        <message>
            <source>Chats with "Search the web" on use the provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
            <translation>Chats mit aktivierter Websuche nutzen die eigene Suche des Anbieters, falls vorhanden (OpenAI Responses, Anthropic, Gemini, OpenRouter). Andere Anbieter erhalten ein web_search-Werkzeug mit dem hier gewählten Dienst. SearXNG muss das JSON-Format erlauben (search: formats: [html, json] in seiner settings.yml).</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>Dienst</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API-Schlüssel</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Recherche</translation>
        </message>
        <message>
            <source>Research: search rounds at most</source>
            <translation>Recherche: höchstens so viele Suchrunden</translation>
        </message>
        <message>
            <source> min</source>
            <translation> Min.</translation>
        </message>
        <message>
            <source>Research: minutes at most</source>
            <translation>Recherche: höchstens so viele Minuten</translation>
        </message>
        <message>
            <source>No ceiling</source>
            <translation>Keine Grenze</translation>
        </message>
        <message>
            <source>Research: cost ceiling in US dollars</source>
            <translation>Recherche: Kostengrenze in US-Dollar</translation>
        </message>
        <message>
            <source>Search rounds</source>
            <translation>Suchrunden</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>Zeitlimit</translation>
        </message>
        <message>
            <source>Cost ceiling</source>
            <translation>Kostengrenze</translation>
        </message>
        <message>
            <source>A research run stops at whichever limit comes first and says so in its report. The cost counts only models with a known price (Model prices).</source>
            <translation>Eine Recherche hält bei der Grenze an, die zuerst erreicht wird, und sagt es in ihrem Bericht. Die Kosten zählen nur Modelle mit bekanntem Preis (Modellpreise).</translation>
        </message>
        <message>
            <source>https://searx.example.org</source>
            <translation>https://searx.example.org</translation>
        </message>
        <message>
            <source>Default: the service's API</source>
            <translation>Standard: die API des Dienstes</translation>
        </message>
        <message>
            <source>SearXNG needs the address of an instance.</source>
            <translation>SearXNG braucht die Adresse einer Instanz.</translation>
        </message>
    </context>
    <context>
        <name>WelcomePage</name>
        <message>
            <source>Connect a model provider</source>
            <translation>Einen Modellanbieter verbinden</translation>
        </message>
        <message>
            <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
            <translation>Assista spricht mit OpenAI-kompatiblen Diensten: einem Cloud-Anbieter mit Ihrem API-Schlüssel oder einem lokalen Server wie LM Studio. Wählen Sie einen zum Start:</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>{name} hinzufügen</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Add a provider</source>
            <translation>Anbieter hinzufügen</translation>
        </message>
        <message>
            <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
            <translation>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio oder jeder OpenAI-kompatible Server. Schlüssel bleiben im Schlüsselbund Ihres Systems.</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>Anbieter hinzufügen…</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>Modell wählen</translation>
        </message>
        <message>
            <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
            <translation>Tippen Sie in der Modellauswahl, um alle Modelle Ihrer Anbieter zu durchsuchen; markieren Sie Ihre meistgenutzten mit einem Stern.</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Modell wählen…</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Fragen</translation>
        </message>
        <message>
            <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
            <translation>Schreiben Sie unten und drücken Sie Eingabe. Wählen Sie einen Arbeitsordner, dann kann der Assistent dessen Dateien lesen und bearbeiten — er fragt, bevor er etwas ändert.</translation>
        </message>
        <message>
            <source>Write a message</source>
            <translation>Nachricht schreiben</translation>
        </message>
        <message>
            <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
            <translation>&lt;h2&gt;Willkommen bei Assista&lt;/h2&gt;</translation>
        </message>
        <message>
            <source>Three steps to your first answer:</source>
            <translation>Drei Schritte zu Ihrer ersten Antwort:</translation>
        </message>
        <message>
            <source>Or start from a &lt;a href="starters"&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
            <translation>Oder beginnen Sie mit einem &lt;a href="starters"&gt;fertigen Assistenten&lt;/a&gt;: Übersetzer, Programmierer, Lektor…</translation>
        </message>
        <message>
            <source>Starter assistants</source>
            <translation>Vorlagen für Assistenten</translation>
        </message>
        <message>
            <source>Step {number} done</source>
            <translation>Schritt {number} erledigt</translation>
        </message>
        <message>
            <source>Step {number}</source>
            <translation>Schritt {number}</translation>
        </message>
    </context>
    <context>
        <name>_PathRow</name>
        <message>
            <source>Browse…</source>
            <translation>Durchsuchen…</translation>
        </message>
    </context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es_ES" sourcelanguage="en">
    <context>
        <name>AboutDialog</name>
        <message>
            <source>No licence text is shipped with this component; its licence is named above.</source>
            <translation>Este componente no incluye el texto de su licencia; la licencia se indica arriba.</translation>
        </message>
        <message>
            <source>About {app}</source>
            <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
            <translation>Acerca de {app}</translation>
        </message>
        <message>
            <source>A desktop chat client for large language models.</source>
            <translation>Un cliente de chat de escritorio para modelos de lenguaje grandes.</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>Licencia: {licence}</translation>
        </message>
        <message>
            <source>{app} is built with these components:</source>
            <translation>{app} está hecho con estos componentes:</translation>
        </message>
        <message>
            <source>Bundled components</source>
            <translation>Componentes incluidos</translation>
        </message>
        <message>
            <source>Component</source>
            <translation>Componente</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>Versión</translation>
        </message>
        <message>
            <source>Licence</source>
            <translation>Licencia</translation>
        </message>
        <message>
            <source>Licence text</source>
            <translation>Texto de la licencia</translation>
        </message>
        <message>
            <source>Select a component to read its licence.</source>
            <translation>Selecciona un componente para leer su licencia.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImage</name>
        <message>
            <source>Image {width}×{height}</source>
            <translation>Imagen {width}×{height}</translation>
        </message>
        <message>
            <source>Save as…</source>
            <translation>Guardar como…</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Copiar</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Abrir</translation>
        </message>
        <message>
            <source>Save image</source>
            <translation>Guardar imagen</translation>
        </message>
        <message>
            <source>Images (*.{suffix})</source>
            <translation>Imágenes (*.{suffix})</translation>
        </message>
        <message>
            <source>The image could not be saved: {reason}</source>
            <translation>No se pudo guardar la imagen: {reason}</translation>
        </message>
        <message>
            <source>The image could not be opened: {reason}</source>
            <translation>No se pudo abrir la imagen: {reason}</translation>
        </message>
        <message>
            <source>No application opens images.</source>
            <translation>Ninguna aplicación abre imágenes.</translation>
        </message>
    </context>
    <context>
        <name>AnswerImages</name>
        <message>
            <source>Image not shown: it is larger than the app allows (10 MB, 8192×8192 pixels).</source>
            <extracomment>The widest an answer's image is shown (a click on Open shows it whole). Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).</extracomment>
            <translation>Imagen no mostrada: supera lo que la aplicación permite (10 MB, 8192×8192 píxeles).</translation>
        </message>
        <message>
            <source>Image not shown: the provider sent a link instead of the picture.</source>
            <translation>Imagen no mostrada: el proveedor envió un enlace en lugar de la imagen.</translation>
        </message>
        <message>
            <source>Image not shown: it could not be downloaded.</source>
            <translation>Imagen no mostrada: no se pudo descargar.</translation>
        </message>
        <message>
            <source>The provider could not make the image.</source>
            <translation>El proveedor no pudo crear la imagen.</translation>
        </message>
        <message>
            <source>Image not shown: the data is not a picture the app can show (PNG, JPEG, GIF or WebP).</source>
            <translation>Imagen no mostrada: los datos no son una imagen que la aplicación pueda mostrar (PNG, JPEG, GIF o WebP).</translation>
        </message>
        <message>
            <source>Image not shown: its data is broken.</source>
            <translation>Imagen no mostrada: sus datos están dañados.</translation>
        </message>
    </context>
    <context>
        <name>AppTray</name>
        <message>
            <source>{app} tray menu</source>
            <translation>Menú de {app} en la bandeja</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Nuevo chat</translation>
        </message>
        <message>
            <source>&amp;Quick ask…</source>
            <translation>&amp;Pregunta rápida…</translation>
        </message>
        <message>
            <source>&amp;Hide window</source>
            <translation>&amp;Ocultar ventana</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Salir</translation>
        </message>
        <message>
            <source>&amp;Show window</source>
            <translation>&amp;Mostrar ventana</translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>… {count} more lines</source>
            <translation>… {count} líneas más</translation>
        </message>
        <message>
            <source>(empty diff)</source>
            <translation>(diff vacío)</translation>
        </message>
        <message>
            <source>built-in tool</source>
            <translation>herramienta integrada</translation>
        </message>
        <message>
            <source>MCP server “{server}”</source>
            <translation>servidor MCP «{server}»</translation>
        </message>
        <message>
            <source>Changes</source>
            <translation>Cambios</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Comando</translation>
        </message>
        <message>
            <source>URL</source>
            <translation>URL</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumentos</translation>
        </message>
        <message>
            <source>Approval needed: {tool}</source>
            <translation>Se necesita aprobación: {tool}</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Se necesita aprobación</translation>
        </message>
        <message>
            <source>Chat: {title}</source>
            <translation>Chat: {title}</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Nuevo chat</translation>
        </message>
        <message>
            <source>Show the chat that asks</source>
            <translation>Mostrar el chat que pregunta</translation>
        </message>
        <message>
            <source>Show chat {title}</source>
            <translation>Mostrar el chat {title}</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vista previa</translation>
        </message>
        <message>
            <source>Reason for denying (optional)</source>
            <translation>Motivo de la denegación (opcional)</translation>
        </message>
        <message>
            <source>If you deny, this reason is sent to the assistant</source>
            <translation>Si deniegas, este motivo se envía al asistente</translation>
        </message>
        <message>
            <source>Reason for denying</source>
            <translation>Motivo de la denegación</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Ejecutar esta llamada ahora; volver a preguntar la próxima vez</translation>
        </message>
        <message>
            <source>Run {tool} without asking in this chat</source>
            <translation>Ejecutar {tool} sin preguntar en este chat</translation>
        </message>
        <message>
            <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
            <translation>No volver a preguntar por {tool} en ningún chat (revócalo en Configuración → Herramientas)</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told (with your reason)</source>
            <translation>No ejecutarla; se le comunica al asistente (con tu motivo)</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on (forget it in Settings → Tools)</source>
            <translation>Los comandos de este chat pueden usar la red a partir de ahora (olvídalo en Ajustes → Herramientas)</translation>
        </message>
        <message>
            <source>Run this command with the network; ask again next time</source>
            <translation>Ejecutar este comando con red; preguntar de nuevo la próxima vez</translation>
        </message>
        <message>
            <source>Full arguments</source>
            <translation>Argumentos completos</translation>
        </message>
        <message>
            <source>Allow network for this &amp;chat</source>
            <translation>Permitir la red en este &amp;chat</translation>
        </message>
        <message>
            <source>Allow &amp;once</source>
            <translation>Permitir &amp;una vez</translation>
        </message>
        <message>
            <source>Allow for this &amp;chat</source>
            <translation>Permitir en este &amp;chat</translation>
        </message>
        <message>
            <source>Al&amp;ways allow</source>
            <translation>Permitir &amp;siempre</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>&amp;Denegar</translation>
        </message>
        <message>
            <source>Allowed once</source>
            <translation>Permitido una vez</translation>
        </message>
        <message>
            <source>Network allowed for this chat's commands</source>
            <translation>Red permitida para los comandos de este chat</translation>
        </message>
        <message>
            <source>Allowed for this chat</source>
            <translation>Permitido en este chat</translation>
        </message>
        <message>
            <source>Always allowed</source>
            <translation>Permitido siempre</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Denegado</translation>
        </message>
        <message>
            <source>Always allowed within {scope}</source>
            <translation>Permitido siempre dentro de {scope}</translation>
        </message>
    </context>
    <context>
        <name>ApprovalTitle</name>
        <message>
            <source>Fetch {host}</source>
            <translation>Obtener {host}</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>Ejecutar un comando</translation>
        </message>
        <message>
            <source>Run a command in {folder}</source>
            <translation>Ejecutar un comando en {folder}</translation>
        </message>
        <message>
            <source>Create {path}</source>
            <translation>Crear {path}</translation>
        </message>
        <message>
            <source>Overwrite {path}</source>
            <translation>Sobrescribir {path}</translation>
        </message>
        <message>
            <source>Edit {path}</source>
            <translation>Editar {path}</translation>
        </message>
        <message>
            <source>Save a memory</source>
            <translation>Guardar un recuerdo</translation>
        </message>
        <message>
            <source>Allow network for this chat's commands</source>
            <translation>Permitir la red a los comandos de este chat</translation>
        </message>
        <message>
            <source>Sandboxed · no network · writes only in the workspace</source>
            <translation>En sandbox · sin red · solo escribe en el espacio de trabajo</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed · writes only in the workspace</source>
            <translation>En sandbox · red permitida · solo escribe en el espacio de trabajo</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed for this chat · writes only in the workspace</source>
            <translation>En el entorno aislado · red permitida en este chat · escribe solo en la carpeta de trabajo</translation>
        </message>
        <message>
            <source>Not sandboxed: the sandbox is turned off in Settings → Tools</source>
            <translation>Sin sandbox: el sandbox está desactivado en Ajustes → Herramientas</translation>
        </message>
        <message>
            <source>Not sandboxed: this system offers no sandbox (install bubblewrap)</source>
            <translation>Sin sandbox: este sistema no ofrece ninguno (instala bubblewrap)</translation>
        </message>
    </context>
    <context>
        <name>AssistantForm</name>
        <message>
            <source>e.g. Code reviewer</source>
            <translation>p. ej., Revisor de código</translation>
        </message>
        <message>
            <source>Optional: what it is for</source>
            <translation>Opcional: para qué sirve</translation>
        </message>
        <message>
            <source>The system prompt of chats started from it (empty: the default system prompt)</source>
            <translation>El prompt del sistema de los chats iniciados con él (vacío: el prompt del sistema predeterminado)</translation>
        </message>
        <message>
            <source>Default provider</source>
            <translation>Proveedor predeterminado</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Modelo predeterminado</translation>
        </message>
        <message>
            <source>The provider's default model</source>
            <translation>El modelo predeterminado del proveedor</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Fijar</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Temperatura</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Solo estas herramientas</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Solo estas herramientas (si no, la configuración de herramientas de la app)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Herramientas activadas</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Nombre</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Descripción</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Prompt del sistema</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>Proveedor</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Herramientas</translation>
        </message>
        <message>
            <source>The provider chosen in the window</source>
            <translation>El proveedor elegido en la ventana</translation>
        </message>
        <message>
            <source>(removed provider {id})</source>
            <translation>(proveedor eliminado {id})</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Habilidades</translation>
        </message>
        <message>
            <source>Skills offered to the chats that use this assistant (Settings → Skills adds them)</source>
            <translation>Habilidades que se ofrecen a los chats que usan este asistente (Ajustes → Habilidades las añade)</translation>
        </message>
        <message>
            <source>No skills found (Settings → Skills adds them).</source>
            <translation>No se encontraron habilidades (Ajustes → Habilidades las añade).</translation>
        </message>
    </context>
    <context>
        <name>AssistantGallery</name>
        <message>
            <source>Starter assistants</source>
            <translation>Asistentes de inicio</translation>
        </message>
        <message>
            <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
            <translation>Asistentes listos para empezar. Añade los que quieras: cada uno pasa a ser tuyo y puedes editarlo o eliminarlo en Asistentes.</translation>
        </message>
    </context>
    <context>
        <name>AssistantPicker</name>
        <message>
            <source>Assistant</source>
            <translation>Asistente</translation>
        </message>
        <message>
            <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
            <translation>El asistente de este chat: su prompt del sistema, modelo, temperatura y herramientas</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Sin asistente</translation>
        </message>
        <message>
            <source>Manage assistants…</source>
            <translation>Gestionar asistentes…</translation>
        </message>
    </context>
    <context>
        <name>AssistantsDialog</name>
        <message>
            <source>Assistants</source>
            <translation>Asistentes</translation>
        </message>
        <message>
            <source>New</source>
            <translation>Nuevo</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplicar</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Eliminar</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>Subir</translation>
        </message>
        <message>
            <source>Move up (drag to reorder)</source>
            <translation>Subir (arrastra para reordenar)</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>Bajar</translation>
        </message>
        <message>
            <source>Move down (drag to reorder)</source>
            <translation>Bajar (arrastra para reordenar)</translation>
        </message>
        <message>
            <source>Starter assistants…</source>
            <translation>Asistentes de inicio…</translation>
        </message>
        <message>
            <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
            <translation>Añade asistentes listos (traductor, programador, editor…) para editarlos como tuyos</translation>
        </message>
        <message>
            <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
            <translation>Aún no hay asistentes. Rellena el formulario y pulsa Guardar, o añade asistentes listos con Asistentes de inicio.</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Guardar</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Cerrar</translation>
        </message>
        <message>
            <source>New assistant</source>
            <translation>Nuevo asistente</translation>
        </message>
        <message>
            <source>New assistant {number}</source>
            <translation>Nuevo asistente {number}</translation>
        </message>
        <message>
            <source>Delete assistant</source>
            <translation>Eliminar asistente</translation>
        </message>
        <message>
            <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
            <translation>¿Eliminar el asistente «{name}»? Los chats iniciados con él conservan sus mensajes.</translation>
        </message>
    </context>
    <context>
        <name>AttachFilters</name>
        <message>
            <source>Images</source>
            <translation>Imágenes</translation>
        </message>
        <message>
            <source>PDF documents</source>
            <translation>Documentos PDF</translation>
        </message>
        <message>
            <source>Word documents</source>
            <translation>Documentos de Word</translation>
        </message>
        <message>
            <source>Spreadsheets</source>
            <translation>Hojas de cálculo</translation>
        </message>
        <message>
            <source>Presentations</source>
            <translation>Presentaciones</translation>
        </message>
        <message>
            <source>EPUB books</source>
            <translation>Libros EPUB</translation>
        </message>
        <message>
            <source>Web pages</source>
            <translation>Páginas web</translation>
        </message>
        <message>
            <source>Text and source code</source>
            <translation>Texto y código fuente</translation>
        </message>
        <message>
            <source>All supported files ({patterns})</source>
            <translation>Todos los archivos compatibles ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Todos los archivos (*)</translation>
        </message>
    </context>
    <context>
        <name>AttachmentCard</name>
        <message>
            <source>{name} is no longer at {path}, and the chat keeps only its text.</source>
            <translation>{name} ya no está en {path} y el chat solo conserva su texto.</translation>
        </message>
        <message>
            <source>{name} could not be opened: {reason}</source>
            <translation>No se pudo abrir {name}: {reason}</translation>
        </message>
        <message>
            <source>No application opens {name}.</source>
            <translation>Ninguna aplicación abre {name}.</translation>
        </message>
        <message>
            <source>Open {name}</source>
            <translation>Abrir {name}</translation>
        </message>
        <message>
            <source>Open {file}</source>
            <translation>Abrir {file}</translation>
        </message>
        <message>
            <source>Show extracted text</source>
            <translation>Mostrar el texto extraído</translation>
        </message>
        <message>
            <source>Extracted text of {name}</source>
            <translation>Texto extraído de {name}</translation>
        </message>
        <message>
            <source>Hide extracted text</source>
            <translation>Ocultar el texto extraído</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove {name}</source>
            <translation>Quitar {name}</translation>
        </message>
    </context>
    <context>
        <name>BodyMenu</name>
        <message>
            <source>Copy</source>
            <translation>Copiar</translation>
        </message>
        <message>
            <source>Copy code block</source>
            <translation>Copiar bloque de código</translation>
        </message>
        <message>
            <source>Copy link address</source>
            <translation>Copiar dirección del enlace</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>Seleccionar todo</translation>
        </message>
    </context>
    <context>
        <name>BranchBar</name>
        <message>
            <source>Edit</source>
            <translation>Editar</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept)</source>
            <translation>Editar este mensaje y enviarlo de nuevo (el original se conserva)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>Regenerar</translation>
        </message>
        <message>
            <source>Answer again (this answer is kept)</source>
            <translation>Responder de nuevo (esta respuesta se conserva)</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>Versión anterior</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>Versión siguiente</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>Versión {index} de {count}</translation>
        </message>
    </context>
    <context>
        <name>BundleDialog</name>
        <message>
            <source>{path} is not a file.</source>
            <translation>{path} no es un archivo.</translation>
        </message>
        <message>
            <source>The extension is refused: {reason}</source>
            <translation>Se rechaza la extensión: {reason}</translation>
        </message>
        <message>
            <source>An MCP server named {name} is already installed.</source>
            <translation>Ya hay instalado un servidor MCP llamado {name}.</translation>
        </message>
        <message>
            <source>{field} is required.</source>
            <translation>{field} es obligatorio.</translation>
        </message>
        <message>
            <source>{field} is not a valid value.</source>
            <translation>{field} no tiene un valor válido.</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Instalar extensión</translation>
        </message>
        <message>
            <source>{name} {version}</source>
            <translation>{name} {version}</translation>
        </message>
        <message>
            <source>By {author}. {description}</source>
            <translation>De {author}. {description}</translation>
        </message>
        <message>
            <source>It runs on this computer as the MCP server {name}, with your permissions; its tools ask before they act unless you allow them. Secrets go to the keyring.</source>
            <translation>Se ejecuta en este equipo como el servidor MCP {name}, con tus permisos; sus herramientas preguntan antes de actuar salvo que las permitas. Los secretos van al llavero.</translation>
        </message>
        <message>
            <source>Install</source>
            <translation>Instalar</translation>
        </message>
        <message>
            <source>The extension could not be installed: {reason}</source>
            <translation>No se pudo instalar la extensión: {reason}</translation>
        </message>
    </context>
    <context>
        <name>CallProgress</name>
        <message>
            <source>Progress</source>
            <translation>Progreso</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>A temporary chat has one version of each message: edit and regenerate are not available.</source>
            <translation>Un chat temporal tiene una sola versión de cada mensaje: editar y regenerar no están disponibles.</translation>
        </message>
        <message>
            <source>This chat is answering in another Assista process (assista ask); try again once that answer has finished.</source>
            <translation>Este chat está respondiendo en otro proceso de Assista (assista ask); vuelva a intentarlo cuando esa respuesta haya terminado.</translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>Esperando a que termine otra respuesta de este proveedor…</translation>
        </message>
        <message>
            <source>Memory removed.</source>
            <translation>Recuerdo eliminado.</translation>
        </message>
        <message>
            <source>This memory was already deleted.</source>
            <translation>Este recuerdo ya se había eliminado.</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Assista JSON, lossless (*.json)</source>
            <translation>JSON de Assista, sin pérdidas (*.json)</translation>
        </message>
        <message>
            <source>Markdown, readable (*.md)</source>
            <translation>Markdown, legible (*.md)</translation>
        </message>
        <message>
            <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
            <translation>Exportaciones de chats (*.json *.zip);;Exportación JSON de Assista (*.json);;Exportación de ChatGPT (conversations.json *.zip);;Todos los archivos (*)</translation>
        </message>
    </context>
    <context>
        <name>ChatKnowledgeButton</name>
        <message>
            <source>Knowledge bases of this chat</source>
            <translation>Bases de conocimiento de este chat</translation>
        </message>
        <message>
            <source>The model can search the checked knowledge bases</source>
            <translation>El modelo puede buscar en las bases de conocimiento marcadas</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Ninguna</translation>
        </message>
        <message>
            <source>No knowledge bases yet (Knowledge…)</source>
            <translation>Aún no hay bases de conocimiento (Conocimiento…)</translation>
        </message>
    </context>
    <context>
        <name>ChatPane</name>
        <message>
            <source>Delete messages</source>
            <translation>Eliminar mensajes</translation>
        </message>
        <message>
            <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
            <translation>¿Eliminar este mensaje y todo lo que sigue? También se eliminan las demás versiones que dependen de él. No se puede deshacer.</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Adjuntar archivos</translation>
        </message>
    </context>
    <context>
        <name>ChatSettingsPopover</name>
        <message>
            <source>This chat</source>
            <translation>Este chat</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>Cambiar…</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>Fijar</translation>
        </message>
        <message>
            <source>Set the temperature</source>
            <translation>Fijar la temperatura</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Temperatura</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>Tokens máximos</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Esfuerzo de razonamiento</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Buscar en la web</translation>
        </message>
        <message>
            <source>Search the web in this chat</source>
            <translation>Buscar en la web en este chat</translation>
        </message>
        <message>
            <source>Use the defaults</source>
            <translation>Usar los valores predeterminados</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Razonamiento</translation>
        </message>
        <message>
            <source>Web</source>
            <translation>Web</translation>
        </message>
        <message>
            <source>Knowledge</source>
            <translation>Conocimiento</translation>
        </message>
        <message>
            <source>{model} — {provider}</source>
            <translation>{model} — {provider}</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>sin modelo</translation>
        </message>
        <message>
            <source>No provider yet</source>
            <translation>Aún no hay proveedor</translation>
        </message>
        <message>
            <source>Default ({value})</source>
            <translation>Predeterminado ({value})</translation>
        </message>
        <message>
            <source>Default (the model's)</source>
            <translation>Predeterminado (el del modelo)</translation>
        </message>
        <message>
            <source>off</source>
            <translation>desactivado</translation>
        </message>
        <message>
            <source>on</source>
            <translation>activado</translation>
        </message>
        <message>
            <source>This model does not say it can reason; the setting is sent anyway.</source>
            <translation>Este modelo no indica que sepa razonar; el ajuste se envía de todos modos.</translation>
        </message>
        <message>
            <source>the assistant {name}</source>
            <translation>el asistente {name}</translation>
        </message>
        <message>
            <source>the provider</source>
            <translation>el proveedor</translation>
        </message>
        <message>
            <source>Unset values come from {source}. These apply to this chat only.</source>
            <translation>Los valores sin fijar vienen de {source}. Estos ajustes solo se aplican a este chat.</translation>
        </message>
        <message>
            <source>The provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
            <translation>La búsqueda propia del proveedor si la tiene (OpenAI Responses, Anthropic, Gemini, OpenRouter); si no, el servicio de búsqueda elegido en Preferencias</translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message>
            <source>Conversation</source>
            <translation>Conversación</translation>
        </message>
        <message>
            <source>Zoom &amp;in</source>
            <translation>&amp;Ampliar</translation>
        </message>
        <message>
            <source>Zoom &amp;out</source>
            <translation>&amp;Reducir</translation>
        </message>
        <message>
            <source>&amp;Actual size</source>
            <translation>Tamaño &amp;real</translation>
        </message>
        <message>
            <source>Theme: follow &amp;system</source>
            <translation>Tema: seguir al &amp;sistema</translation>
        </message>
        <message>
            <source>Theme: &amp;light</source>
            <translation>Tema: &amp;claro</translation>
        </message>
        <message>
            <source>Theme: &amp;dark</source>
            <translation>Tema: &amp;oscuro</translation>
        </message>
        <message>
            <source>Theme: &amp;high contrast</source>
            <translation>Tema: &amp;alto contraste</translation>
        </message>
    </context>
    <context>
        <name>CompareChooser</name>
        <message>
            <source>Compare models</source>
            <translation>Comparar modelos</translation>
        </message>
        <message>
            <source>Pick {low} to {high} models. Each answers the same question with this chat's conversation, attachments and tools; every answer is kept as a version of the reply.</source>
            <translation>Elige de {low} a {high} modelos. Cada uno responde a la misma pregunta con la conversación, los adjuntos y las herramientas de este chat; cada respuesta se guarda como una versión de la respuesta.</translation>
        </message>
        <message>
            <source>Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to compare.</source>
            <translation>Teclas: escriba para buscar, ↑/↓ para moverse, Intro para añadir o quitar, Ctrl+Intro para comparar.</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Buscar modelos</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modelos</translation>
        </message>
        <message>
            <source>Chosen models</source>
            <translation>Modelos elegidos</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Comparar</translation>
        </message>
        <message numerus="yes">
            <source>Chosen (%n): </source>
            <translation>
                <numerusform>Elegido (%n): </numerusform>
                <numerusform>Elegidos (%n): </numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing chosen yet: click models in the list.</source>
            <translation>Aún no has elegido nada: haz clic en modelos de la lista.</translation>
        </message>
        <message>
            <source>Choose {low} to {high} models</source>
            <translation>Elige de {low} a {high} modelos</translation>
        </message>
    </context>
    <context>
        <name>CompareColumnView</name>
        <message>
            <source>Answer of {model}</source>
            <translation>Respuesta de {model}</translation>
        </message>
        <message>
            <source>Figures of this answer</source>
            <translation>Cifras de esta respuesta</translation>
        </message>
        <message>
            <source>Stop this answer (the others go on); what it wrote so far is kept</source>
            <translation>Detener esta respuesta (las demás siguen); se conserva lo escrito hasta ahora</translation>
        </message>
        <message>
            <source>Stop {model}</source>
            <translation>Detener {model}</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Quedarse con esta</translation>
        </message>
        <message>
            <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
            <translation>Mostrar esta respuesta en el chat y seguir desde ella; las demás respuestas quedan como otras versiones (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the answer of {model}</source>
            <translation>Quedarse con la respuesta de {model}</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>Error: {error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>error desconocido</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Detenido</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Detenido en el límite de rondas de herramientas</translation>
        </message>
        <message>
            <source>Keep this answer first: in the chat it can be edited, regenerated, continued, forked or deleted.</source>
            <translation>Primero quédate con esta respuesta: en el chat se podrá editar, regenerar, continuar, bifurcar o eliminar.</translation>
        </message>
        <message>
            <source>{seconds} s to first token</source>
            <translation>{seconds} s hasta el primer token</translation>
        </message>
        <message>
            <source>{rate} tok/s</source>
            <translation>{rate} tok/s</translation>
        </message>
        <message>
            <source>{input} in · {output} out</source>
            <translation>{input} entrada · {output} salida</translation>
        </message>
        <message>
            <source>{output} out</source>
            <translation>{output} salida</translation>
        </message>
        <message>
            <source>Waiting for the first token…</source>
            <translation>Esperando el primer token…</translation>
        </message>
    </context>
    <context>
        <name>CompareLauncher</name>
        <message>
            <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
            <translation>Escribe primero la pregunta que quieres comparar y pulsa Comparar (o envíala como /compare PREGUNTA).</translation>
        </message>
    </context>
    <context>
        <name>CompareView</name>
        <message>
            <source>Compare answers</source>
            <translation>Comparar respuestas</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n answer(s)</source>
            <translation>
                <numerusform>Comparando %n respuesta</numerusform>
                <numerusform>Comparando %n respuestas</numerusform>
            </translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>Volver al chat</translation>
        </message>
        <message>
            <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
            <translation>Volver al chat mostrando la primera respuesta (o la que elijas); cada respuesta queda como una versión de la respuesta</translation>
        </message>
    </context>
    <context>
        <name>Composer</name>
        <message>
            <source>Built-in</source>
            <translation>Integradas</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
            <translation>Mensaje…  (Intro para enviar · Mayús+Intro para nueva línea)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Mensaje</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Adjuntar archivos</translation>
        </message>
        <message>
            <source>No workspace</source>
            <translation>Sin carpeta de trabajo</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may read</source>
            <translation>Elige la carpeta que pueden leer las herramientas de archivos</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Carpeta de trabajo</translation>
        </message>
        <message>
            <source>Switch tools on or off for this chat</source>
            <translation>Activar o desactivar herramientas en este chat</translation>
        </message>
        <message>
            <source>Tools for this chat</source>
            <translation>Herramientas de este chat</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Comparar</translation>
        </message>
        <message>
            <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
            <translation>Pregunta a 2–4 modelos a la vez y ve sus respuestas en paralelo (o escribe /compare)</translation>
        </message>
        <message>
            <source>Attach images, PDF, Word, Excel, PowerPoint, EPUB or text files</source>
            <translation>Adjuntar imágenes, PDF, Word, Excel, PowerPoint, EPUB o archivos de texto</translation>
        </message>
        <message>
            <source>Compare models</source>
            <translation>Comparar modelos</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Enviar</translation>
        </message>
        <message>
            <source>Research: the model plans, searches the web and the chat's knowledge bases in rounds, reads pages and answers with a report citing them (limits in Settings)</source>
            <translation>Investigación: el modelo planifica, busca en la web y en las bases de conocimiento del chat por rondas, lee páginas y responde con un informe que las cita (límites en Ajustes)</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Investigación</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Detener</translation>
        </message>
        <message>
            <source>Workspace folder: {name}</source>
            <translation>Carpeta de trabajo: {name}</translation>
        </message>
        <message>
            <source>Choose workspace…</source>
            <translation>Elegir carpeta…</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may use</source>
            <translation>Elige la carpeta que pueden usar las herramientas de archivos</translation>
        </message>
        <message>
            <source>Workspace folder: none</source>
            <translation>Carpeta de trabajo: ninguna</translation>
        </message>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>herram.: %n activa</numerusform>
                <numerusform>herram.: %n activas</numerusform>
            </translation>
        </message>
        <message>
            <source>tools: none</source>
            <translation>herram.: ninguna</translation>
        </message>
        <message>
            <source>Choose a workspace folder to use the file tools</source>
            <translation>Elige una carpeta de trabajo para usar las herramientas de archivos</translation>
        </message>
        <message>
            <source>No tools available</source>
            <translation>No hay herramientas disponibles</translation>
        </message>
        <message>
            <source>All on</source>
            <translation>Todas activadas</translation>
        </message>
        <message>
            <source>All off</source>
            <translation>Todas desactivadas</translation>
        </message>
        <message>
            <source>Tool settings…</source>
            <translation>Configuración de herramientas…</translation>
        </message>
        <message>
            <source>MCP servers…</source>
            <translation>Servidores MCP…</translation>
        </message>
    </context>
    <context>
        <name>ConversationActions</name>
        <message>
            <source>&amp;Import chats…</source>
            <translation>&amp;Importar chats…</translation>
        </message>
        <message>
            <source>&amp;Export chat…</source>
            <translation>&amp;Exportar chat…</translation>
        </message>
        <message>
            <source>Export &amp;all chats…</source>
            <translation>Exportar &amp;todos los chats…</translation>
        </message>
        <message>
            <source>&amp;Chat</source>
            <translation>&amp;Chat</translation>
        </message>
        <message>
            <source>&amp;Search chats…</source>
            <translation>&amp;Buscar en los chats…</translation>
        </message>
        <message>
            <source>&amp;Find in this chat…</source>
            <translation>&amp;Buscar en este chat…</translation>
        </message>
        <message>
            <source>Edit system &amp;prompt…</source>
            <translation>Editar el &amp;prompt del sistema…</translation>
        </message>
        <message>
            <source>&amp;Assistants…</source>
            <translation>&amp;Asistentes…</translation>
        </message>
        <message>
            <source>Choose &amp;model…</source>
            <translation>Elegir &amp;modelo…</translation>
        </message>
        <message>
            <source>Stop &amp;all answers</source>
            <translation>Detener &amp;todas las respuestas</translation>
        </message>
        <message>
            <source>Show &amp;chats</source>
            <translation>Mostrar &amp;chats</translation>
        </message>
        <message>
            <source>Show a&amp;rchived chats</source>
            <translation>Mostrar chats a&amp;rchivados</translation>
        </message>
        <message>
            <source>Show &amp;trash</source>
            <translation>Mostrar la &amp;papelera</translation>
        </message>
    </context>
    <context>
        <name>DefaultPrompt</name>
        <message>
            <source>You are Assista, a helpful assistant running in a desktop app. Use the available tools when they help answer the user's question. Format answers in Markdown.</source>
            <translation>Eres Assista, un asistente útil que funciona en una aplicación de escritorio. Usa las herramientas disponibles cuando ayuden a responder la pregunta del usuario. Da formato a las respuestas en Markdown.</translation>
        </message>
    </context>
    <context>
        <name>DesktopNotifier</name>
        <message>
            <source>Answer failed</source>
            <translation>La respuesta falló</translation>
        </message>
        <message>
            <source>Answer ready</source>
            <translation>Respuesta lista</translation>
        </message>
        <message>
            <source>A chat</source>
            <translation>Un chat</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>Se necesita aprobación</translation>
        </message>
        <message>
            <source>{chat}: {tool} waits for your approval</source>
            <translation>{chat}: {tool} espera tu aprobación</translation>
        </message>
    </context>
    <context>
        <name>DesktopTab</name>
        <message>
            <source>Keep running in the tray</source>
            <extracomment>The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at once, so the status below says whether the desktop took it.</extracomment>
            <translation>Seguir ejecutándose en la bandeja</translation>
        </message>
        <message>
            <source>Closing the window hides it; the tray icon's menu brings it back, and its Quit quits</source>
            <translation>Al cerrar la ventana se oculta; el menú del icono de la bandeja la vuelve a mostrar y su opción Salir cierra la app</translation>
        </message>
        <message>
            <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
            <translation>Este escritorio no muestra iconos en la bandeja: cerrar la ventana cierra la app, diga lo que diga esta opción</translation>
        </message>
        <message>
            <source>Tray</source>
            <translation>Bandeja</translation>
        </message>
        <message>
            <source>Clear the quick ask shortcut</source>
            <translation>Borrar el atajo de pregunta rápida</translation>
        </message>
        <message>
            <source>No global shortcut</source>
            <translation>Sin atajo global</translation>
        </message>
        <message>
            <source>Quick ask shortcut</source>
            <translation>Atajo de pregunta rápida</translation>
        </message>
        <message>
            <source>Press the key combination that opens the quick-ask window from any application; it applies at once</source>
            <translation>Pulsa la combinación de teclas que abre la ventana de pregunta rápida desde cualquier aplicación; se aplica al momento</translation>
        </message>
        <message>
            <source>Click, then press the combination (Ctrl, Alt or Meta with a key)</source>
            <translation>Haz clic y pulsa la combinación (Ctrl, Alt o Meta con una tecla)</translation>
        </message>
        <message>
            <source>Quick ask shortcut status</source>
            <translation>Estado del atajo de pregunta rápida</translation>
        </message>
        <message>
            <source>Look for a new version once a day</source>
            <translation>Buscar una versión nueva una vez al día</translation>
        </message>
        <message>
            <source>Updates</source>
            <translation>Actualizaciones</translation>
        </message>
        <message>
            <source>Release feed URL</source>
            <translation>URL del feed de versiones</translation>
        </message>
        <message>
            <source>A feed in GitHub's Releases API format; empty: the project's own releases</source>
            <translation>Un feed con el formato de la API de versiones de GitHub; vacío: las versiones del propio proyecto</translation>
        </message>
        <message>
            <source>Release feed</source>
            <translation>Feed de versiones</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir): the app never looks for updates.</source>
            <translation>Modo portátil (--data-dir): la app nunca busca actualizaciones.</translation>
        </message>
        <message>
            <source>The release feed must be an https:// URL.</source>
            <translation>El feed de versiones debe ser una URL https://.</translation>
        </message>
    </context>
    <context>
        <name>EarlierColumnView</name>
        <message>
            <source>Assistant</source>
            <translation>Asistente</translation>
        </message>
        <message>
            <source>Earlier answer of {model}</source>
            <translation>Respuesta anterior de {model}</translation>
        </message>
        <message>
            <source>The answer you asked about</source>
            <translation>La respuesta sobre la que preguntaste</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>Quedarse con esta</translation>
        </message>
        <message>
            <source>Go on from this answer, as before; the new answers stay as its other versions (‹ n/m ›)</source>
            <translation>Seguir desde esta respuesta, como antes; las respuestas nuevas quedan como otras versiones (‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the earlier answer</source>
            <translation>Quedarse con la respuesta anterior</translation>
        </message>
    </context>
    <context>
        <name>EarlyQuestion</name>
        <message>
            <source>Question sent. Opening the chat…</source>
            <translation>Pregunta enviada. Abriendo el chat…</translation>
        </message>
    </context>
    <context>
        <name>EditBanner</name>
        <message>
            <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
            <translation>Editando un mensaje anterior: Intro lo envía como versión nueva; el original y sus respuestas se conservan (‹ › cambia entre ellas).</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>Cancelar edición</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>{provider} did not accept the API key. Check the key in Providers.</source>
            <extracomment>code (or "code+param": the sentence when that param is known) -&gt; the sentence.</extracomment>
            <translation>{provider} no aceptó la clave de API. Revise la clave en Proveedores.</translation>
        </message>
        <message>
            <source>{provider} did not accept the API key (HTTP {status}). Check the key in Providers.</source>
            <translation>{provider} no aceptó la clave de API (HTTP {status}). Revise la clave en Proveedores.</translation>
        </message>
        <message>
            <source>{provider} refused access: the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} denegó el acceso: puede que la clave de API no tenga permiso para usar este modelo o este punto de acceso.</translation>
        </message>
        <message>
            <source>{provider} refused access (HTTP {status}): the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} denegó el acceso (HTTP {status}): puede que la clave de API no tenga permiso para usar este modelo o este punto de acceso.</translation>
        </message>
        <message>
            <source>{provider} did not find the address asked for. Check the base URL.</source>
            <translation>{provider} no encontró la dirección solicitada. Revise la URL base.</translation>
        </message>
        <message>
            <source>{provider} does not know this model. Choose another model or check its name.</source>
            <translation>{provider} no conoce este modelo. Elija otro modelo o revise su nombre.</translation>
        </message>
        <message>
            <source>{provider} does not know the model {model}. Choose another model or check its name.</source>
            <translation>{provider} no conoce el modelo {model}. Elija otro modelo o revise su nombre.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in a moment.</source>
            <translation>{provider} está limitando las solicitudes (demasiadas, demasiado rápido). Vuelva a intentarlo en un momento.</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in {retry_after} s.</source>
            <translation>{provider} está limitando las solicitudes (demasiadas, demasiado rápido). Vuelva a intentarlo en {retry_after} s.</translation>
        </message>
        <message>
            <source>{provider} says the account's quota or credit is used up. Check the plan or billing.</source>
            <translation>{provider} indica que la cuota o el crédito de la cuenta se ha agotado. Revise el plan o la facturación.</translation>
        </message>
        <message>
            <source>The conversation is too long for this model's context window. Start a new chat, or delete earlier messages.</source>
            <translation>La conversación es demasiado larga para la ventana de contexto de este modelo. Empiece un chat nuevo o elimine mensajes anteriores.</translation>
        </message>
        <message>
            <source>{provider} refused the request.</source>
            <translation>{provider} rechazó la solicitud.</translation>
        </message>
        <message>
            <source>{provider} refused the request (HTTP {status}).</source>
            <translation>{provider} rechazó la solicitud (HTTP {status}).</translation>
        </message>
        <message>
            <source>{provider} had a server error. Try again later.</source>
            <translation>{provider} tuvo un error del servidor. Vuelva a intentarlo más tarde.</translation>
        </message>
        <message>
            <source>{provider} had a server error (HTTP {status}). Try again later.</source>
            <translation>{provider} tuvo un error del servidor (HTTP {status}). Vuelva a intentarlo más tarde.</translation>
        </message>
        <message>
            <source>Could not connect to {provider}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>No se pudo conectar con {provider}. Revise la URL base, la red y el proxy, y que el servidor esté en marcha.</translation>
        </message>
        <message>
            <source>Could not connect to {provider} at {url}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>No se pudo conectar con {provider} en {url}. Revise la URL base, la red y el proxy, y que el servidor esté en marcha.</translation>
        </message>
        <message>
            <source>{provider} did not answer in time.</source>
            <translation>{provider} no respondió a tiempo.</translation>
        </message>
        <message>
            <source>The connection to {provider} broke before the answer was complete.</source>
            <translation>La conexión con {provider} se cortó antes de que la respuesta estuviera completa.</translation>
        </message>
        <message>
            <source>{provider} sent an answer that could not be read. Check the base URL.</source>
            <translation>{provider} envió una respuesta que no se pudo leer. Revise la URL base.</translation>
        </message>
        <message>
            <source>{provider} sent a reply larger than the limit; it was not read.</source>
            <translation>{provider} envió una respuesta mayor que el límite; no se leyó.</translation>
        </message>
        <message>
            <source>The base URL of {provider} cannot be used. Check it in Providers.</source>
            <translation>La URL base de {provider} no se puede usar. Revísela en Proveedores.</translation>
        </message>
        <message>
            <source>{provider} reported an error.</source>
            <translation>{provider} informó de un error.</translation>
        </message>
        <message>
            <source>Choose a model for {provider} first.</source>
            <translation>Elija primero un modelo para {provider}.</translation>
        </message>
        <message>
            <source>{model} cannot see images. Pick a vision model, or turn on vision for it in Providers if you know it supports images.</source>
            <translation>{model} no puede ver imágenes. Elija un modelo con visión, o active la visión para él en Proveedores si sabe que admite imágenes.</translation>
        </message>
        <message>
            <source>This chat is still answering; stop it first.</source>
            <translation>Este chat todavía está respondiendo; deténgalo primero.</translation>
        </message>
        <message>
            <source>Research needs something to search: choose a search service (SearXNG, Brave or Tavily) in Settings, or add a knowledge base to the chat.</source>
            <translation>La investigación necesita algo en lo que buscar: elige un servicio de búsqueda (SearXNG, Brave o Tavily) en Ajustes o añade una base de conocimiento al chat.</translation>
        </message>
        <message>
            <source>That message is already gone.</source>
            <translation>Ese mensaje ya no existe.</translation>
        </message>
        <message>
            <source>That chat is gone.</source>
            <translation>Ese chat ya no existe.</translation>
        </message>
        <message>
            <source>A memory needs some text.</source>
            <translation>Un recuerdo necesita algo de texto.</translation>
        </message>
        <message>
            <source>That memory is gone.</source>
            <translation>Ese recuerdo ya no existe.</translation>
        </message>
        <message>
            <source>Comparing models is not available in a temporary chat.</source>
            <translation>Comparar modelos no está disponible en un chat temporal.</translation>
        </message>
        <message>
            <source>Something unexpected went wrong.</source>
            <translation>Algo inesperado salió mal.</translation>
        </message>
        <message>
            <source>A project needs a name.</source>
            <translation>Un proyecto necesita un nombre.</translation>
        </message>
        <message>
            <source>There is already a project named {name}.</source>
            <translation>Ya hay un proyecto llamado {name}.</translation>
        </message>
        <message>
            <source>There is no project named {name}.</source>
            <translation>No hay ningún proyecto llamado {name}.</translation>
        </message>
        <message>
            <source>The file {file} does not exist.</source>
            <translation>El archivo {file} no existe.</translation>
        </message>
        <message>
            <source>{file} could not be added to the project.</source>
            <translation>No se pudo añadir {file} al proyecto.</translation>
        </message>
        <message>
            <source>The workspace {folder} is not a folder.</source>
            <translation>El espacio de trabajo {folder} no es una carpeta.</translation>
        </message>
        <message>
            <source>{sentence} Details: {detail}</source>
            <translation>{sentence} Detalles: {detail}</translation>
        </message>
        <message>
            <source>The provider</source>
            <translation>El proveedor</translation>
        </message>
        <message>
            <source>The data folder {folder} does not exist.</source>
            <translation>La carpeta de datos {folder} no existe.</translation>
        </message>
        <message>
            <source>The data folder {folder} holds no Assista database.</source>
            <translation>La carpeta de datos {folder} no contiene ninguna base de datos de Assista.</translation>
        </message>
        <message>
            <source>The data folder {folder} cannot be written.</source>
            <translation>No se puede escribir en la carpeta de datos {folder}.</translation>
        </message>
        <message>
            <source>{file} cannot be used.</source>
            <translation>No se puede usar {file}.</translation>
        </message>
        <message>
            <source>The data location {folder} exists but is not a folder.</source>
            <translation>La ubicación de datos {folder} existe, pero no es una carpeta.</translation>
        </message>
        <message>
            <source>{flag} needs a folder, for example {example}.</source>
            <translation>{flag} necesita una carpeta, por ejemplo {example}.</translation>
        </message>
        <message>
            <source>The database is closed.</source>
            <translation>La base de datos está cerrada.</translation>
        </message>
        <message>
            <source>The database {path} was written by a newer version of Assista (schema {schema}; this version knows up to {known}). Update Assista, or start it with another data folder. The database was not modified.</source>
            <translation>La base de datos {path} la escribió una versión más reciente de Assista (esquema {schema}; esta versión conoce hasta el {known}). Actualice Assista o inícielo con otra carpeta de datos. La base de datos no se ha modificado.</translation>
        </message>
        <message>
            <source>The database {path} needs an upgrade (schema {schema} to {known}) and cannot be opened read-only.</source>
            <translation>La base de datos {path} necesita una actualización (del esquema {schema} al {known}) y no se puede abrir en modo de solo lectura.</translation>
        </message>
        <message>
            <source>The database {path} is damaged.</source>
            <translation>La base de datos {path} está dañada.</translation>
        </message>
        <message>
            <source>The database {path} is damaged. Restart Assista to recover it.</source>
            <translation>La base de datos {path} está dañada. Reinicie Assista para recuperarla.</translation>
        </message>
        <message>
            <source>The database {path} cannot be used. It may be damaged or not an Assista database.</source>
            <translation>No se puede usar la base de datos {path}. Puede estar dañada o no ser una base de datos de Assista.</translation>
        </message>
        <message>
            <source>The database {path} is damaged and could not be moved aside; move it away yourself and start Assista again.</source>
            <translation>La base de datos {path} está dañada y no se pudo apartar; muévala usted mismo y vuelva a iniciar Assista.</translation>
        </message>
        <message>
            <source>Cannot open the database {path}.</source>
            <translation>No se puede abrir la base de datos {path}.</translation>
        </message>
        <message>
            <source>The database {path} is open read-only (its folder cannot be written); this change was not saved.</source>
            <translation>La base de datos {path} está abierta en modo de solo lectura (no se puede escribir en su carpeta); este cambio no se guardó.</translation>
        </message>
        <message>
            <source>The database {path} cannot be written.</source>
            <translation>No se puede escribir en la base de datos {path}.</translation>
        </message>
        <message>
            <source>The disk holding the database {path} is full.</source>
            <translation>El disco que contiene la base de datos {path} está lleno.</translation>
        </message>
        <message>
            <source>The database is busy or unavailable.</source>
            <translation>La base de datos está ocupada o no está disponible.</translation>
        </message>
        <message>
            <source>The database {path} could not be read or written.</source>
            <translation>No se pudo leer ni escribir la base de datos {path}.</translation>
        </message>
        <message>
            <source>Cannot back up the database {path} before upgrading it. The database was not modified; free some disk space and try again.</source>
            <translation>No se puede hacer una copia de seguridad de la base de datos {path} antes de actualizarla. La base de datos no se ha modificado; libere espacio en disco e inténtelo de nuevo.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was left at version {version}.</source>
            <translation>La actualización de la base de datos {path} (migración {migration}) falló. La base de datos se quedó en la versión {version}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was restored as it was (version {version}); a copy is kept in {backup}.</source>
            <translation>La actualización de la base de datos {path} (migración {migration}) falló. La base de datos se restauró tal como estaba (versión {version}); se guarda una copia en {backup}.</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed, and restoring the backup also failed; your data is safe in {backup}.</source>
            <translation>La actualización de la base de datos {path} (migración {migration}) falló, y la restauración de la copia de seguridad también; sus datos están a salvo en {backup}.</translation>
        </message>
        <message>
            <source>After the upgrade, some records of the database point to records that do not exist.</source>
            <translation>Tras la actualización, algunos registros de la base de datos apuntan a registros que no existen.</translation>
        </message>
        <message>
            <source>A step of the database upgrade failed.</source>
            <translation>Falló un paso de la actualización de la base de datos.</translation>
        </message>
        <message>
            <source>Cannot open the request inspector's database {path}.</source>
            <translation>No se puede abrir la base de datos del inspector de solicitudes {path}.</translation>
        </message>
        <message>
            <source>The key file {file} cannot be read. Fix or delete it and enter the API keys again.</source>
            <translation>No se puede leer el archivo de claves {file}. Corríjalo o elimínelo y vuelva a introducir las claves de API.</translation>
        </message>
        <message>
            <source>The key file {file} has an unexpected format.</source>
            <translation>El archivo de claves {file} tiene un formato inesperado.</translation>
        </message>
        <message>
            <source>Cannot write the key file {file}.</source>
            <translation>No se puede escribir el archivo de claves {file}.</translation>
        </message>
        <message>
            <source>The setting {key} cannot be stored.</source>
            <translation>No se puede guardar el ajuste {key}.</translation>
        </message>
        <message>
            <source>The search failed.</source>
            <translation>La búsqueda falló.</translation>
        </message>
        <message>
            <source>The answer could not be saved.</source>
            <translation>No se pudo guardar la respuesta.</translation>
        </message>
        <message>
            <source>{count} messages could not be saved.</source>
            <translation>No se pudieron guardar {count} mensajes.</translation>
        </message>
        <message>
            <source>The message is empty.</source>
            <translation>El mensaje está vacío.</translation>
        </message>
        <message>
            <source>That message already exists.</source>
            <translation>Ese mensaje ya existe.</translation>
        </message>
        <message>
            <source>That message is not in this chat.</source>
            <translation>Ese mensaje no está en este chat.</translation>
        </message>
        <message>
            <source>The message could not be saved: it belongs to another chat.</source>
            <translation>No se pudo guardar el mensaje: pertenece a otro chat.</translation>
        </message>
        <message>
            <source>The message could not be saved: the message it follows is not in this chat.</source>
            <translation>No se pudo guardar el mensaje: el mensaje al que sigue no está en este chat.</translation>
        </message>
        <message>
            <source>That message is not on the chat's shown branch.</source>
            <translation>Ese mensaje no está en la rama mostrada del chat.</translation>
        </message>
        <message>
            <source>There is no question before this message to ask again.</source>
            <translation>No hay ninguna pregunta antes de este mensaje para volver a hacer.</translation>
        </message>
        <message>
            <source>A chat with id {chat} already exists.</source>
            <translation>Ya existe un chat con el id {chat}.</translation>
        </message>
        <message>
            <source>The chat could not be locked for its answer.</source>
            <translation>No se pudo bloquear el chat para su respuesta.</translation>
        </message>
        <message>
            <source>Nothing to undo: no file written by the assistant is waiting to be undone.</source>
            <translation>Nada que deshacer: ningún archivo escrito por el asistente está pendiente de deshacer.</translation>
        </message>
        <message>
            <source>This record has no request to replay (recorded by an older version).</source>
            <translation>Este registro no tiene ninguna solicitud para repetir (lo registró una versión anterior).</translation>
        </message>
        <message>
            <source>Compare {minimum} to {maximum} models at once ({given} given).</source>
            <translation>Compare de {minimum} a {maximum} modelos a la vez ({given} indicados).</translation>
        </message>
        <message>
            <source>An assistant needs a name.</source>
            <translation>Un asistente necesita un nombre.</translation>
        </message>
        <message>
            <source>The temperature must be between 0 and 2.</source>
            <translation>La temperatura debe estar entre 0 y 2.</translation>
        </message>
        <message>
            <source>The assistant could not be saved.</source>
            <translation>No se pudo guardar el asistente.</translation>
        </message>
        <message>
            <source>That assistant no longer exists.</source>
            <translation>Ese asistente ya no existe.</translation>
        </message>
        <message>
            <source>The project could not be saved.</source>
            <translation>No se pudo guardar el proyecto.</translation>
        </message>
        <message>
            <source>That project no longer exists.</source>
            <translation>Ese proyecto ya no existe.</translation>
        </message>
        <message>
            <source>Several memories have ids starting with {id}; give more of the id.</source>
            <translation>Varios recuerdos tienen ids que empiezan por {id}; indique más caracteres del id.</translation>
        </message>
        <message>
            <source>The system speech failed.</source>
            <translation>La voz del sistema falló.</translation>
        </message>
        <message>
            <source>This is not an Assista export file.</source>
            <translation>Este no es un archivo de exportación de Assista.</translation>
        </message>
        <message>
            <source>This export has format version {version}, which this version of Assista cannot read; update Assista to import it.</source>
            <translation>Esta exportación tiene la versión de formato {version}, que esta versión de Assista no puede leer; actualice Assista para importarla.</translation>
        </message>
        <message>
            <source>A chat in the export is not readable.</source>
            <translation>Un chat de la exportación no se puede leer.</translation>
        </message>
        <message>
            <source>The chat {chat} in the export is not readable.</source>
            <translation>El chat {chat} de la exportación no se puede leer.</translation>
        </message>
        <message>
            <source>Some messages of the chat {chat} already exist in another chat.</source>
            <translation>Algunos mensajes del chat {chat} ya existen en otro chat.</translation>
        </message>
        <message>
            <source>The memories in the export are not readable.</source>
            <translation>Los recuerdos de la exportación no se pueden leer.</translation>
        </message>
        <message>
            <source>A project in the export is not readable.</source>
            <translation>Un proyecto de la exportación no se puede leer.</translation>
        </message>
        <message>
            <source>{file} holds more than {limit} MB of chats, more than Assista imports at once; split the export or import the chats in parts.</source>
            <translation>{file} contiene más de {limit} MB de chats, más de lo que Assista importa de una vez; divida la exportación o importe los chats por partes.</translation>
        </message>
        <message>
            <source>{file} is not a file (a folder, a device or a pipe); import reads an export file.</source>
            <translation>{file} no es un archivo (es una carpeta, un dispositivo o una tubería); la importación lee un archivo de exportación.</translation>
        </message>
        <message>
            <source>{file} is a damaged zip file.</source>
            <translation>{file} es un archivo zip dañado.</translation>
        </message>
        <message>
            <source>{file} is not a JSON file.</source>
            <translation>{file} no es un archivo JSON.</translation>
        </message>
        <message>
            <source>{file} has no conversations.json inside.</source>
            <translation>{file} no contiene ningún conversations.json.</translation>
        </message>
        <message>
            <source>This file is neither an Assista export nor a ChatGPT conversations.json.</source>
            <translation>Este archivo no es ni una exportación de Assista ni un conversations.json de ChatGPT.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read: a conversation in it has fields of the wrong type; nothing was imported.</source>
            <translation>No se pudo leer la exportación de ChatGPT: una conversación tiene campos del tipo incorrecto; no se importó nada.</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read.</source>
            <translation>No se pudo leer la exportación de ChatGPT.</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Añada un proveedor para empezar a chatear.</translation>
        </message>
        <message>
            <source>{provider} needs an API key: add one in Providers.</source>
            <translation>{provider} necesita una clave de API: añada una en Proveedores.</translation>
        </message>
        <message>
            <source>{provider} uses an unsupported kind of provider ({kind}).</source>
            <translation>{provider} usa un tipo de proveedor no compatible ({kind}).</translation>
        </message>
        <message>
            <source>{provider}: the option {option} is not valid.</source>
            <translation>{provider}: la opción {option} no es válida.</translation>
        </message>
        <message>
            <source>Unknown provider preset {preset} (known: {known}).</source>
            <translation>Ajuste predefinido de proveedor desconocido {preset} (conocidos: {known}).</translation>
        </message>
        <message>
            <source>{provider} needs a base URL (for example http://localhost:8080/v1).</source>
            <translation>{provider} necesita una URL base (por ejemplo http://localhost:8080/v1).</translation>
        </message>
        <message>
            <source>The header {name} looks like a credential. Enter the API key in the provider's key field instead; it is kept in the system keyring, not in the settings.</source>
            <translation>El encabezado {name} parece una credencial. Introduzca la clave de API en el campo de clave del proveedor; se guarda en el llavero del sistema, no en los ajustes.</translation>
        </message>
        <message>
            <source>Unknown tools: {tools}. Available: {available}.</source>
            <translation>Herramientas desconocidas: {tools}. Disponibles: {available}.</translation>
        </message>
        <message>
            <source>{provider} has no web search of its own: choose a search service (SearXNG, Brave or Tavily) in Settings, or turn off Search the web.</source>
            <translation>{provider} no tiene búsqueda web propia: elija un servicio de búsqueda (SearXNG, Brave o Tavily) en Ajustes, o desactive Buscar en la web.</translation>
        </message>
        <message>
            <source>Web search via {service} needs the instance's address (Settings).</source>
            <translation>La búsqueda web mediante {service} necesita la dirección de la instancia (Ajustes).</translation>
        </message>
        <message>
            <source>Web search via {service} needs an API key (Settings).</source>
            <translation>La búsqueda web mediante {service} necesita una clave de API (Ajustes).</translation>
        </message>
        <message>
            <source>This model cannot call tools, so it cannot search the web here; pick a model with tools or turn off Search the web.</source>
            <translation>Este modelo no puede llamar a herramientas, así que no puede buscar en la web aquí; elija un modelo con herramientas o desactive Buscar en la web.</translation>
        </message>
        <message>
            <source>Unknown sync target {url}: use {forms}.</source>
            <translation>Destino de sincronización desconocido {url}: use {forms}.</translation>
        </message>
        <message>
            <source>Set the sync passphrase in Settings → Sync.</source>
            <translation>Establezca la frase de contraseña de sincronización en Ajustes → Sincronización.</translation>
        </message>
        <message>
            <source>The sync passphrase is empty; set one to encrypt your chats.</source>
            <translation>La frase de contraseña de sincronización está vacía; establezca una para cifrar sus chats.</translation>
        </message>
        <message>
            <source>The sync passphrase is wrong: it does not open the chats already on the target. Nothing was changed.</source>
            <translation>La frase de contraseña de sincronización es incorrecta: no abre los chats que ya están en el destino. No se cambió nada.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged.</source>
            <translation>{file} en el destino de sincronización está dañado.</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged or was altered (it fails authentication).</source>
            <translation>{file} en el destino de sincronización está dañado o fue alterado (no supera la autenticación).</translation>
        </message>
        <message>
            <source>The sync target was set up by a newer version of Assista; update Assista.</source>
            <translation>El destino de sincronización lo configuró una versión más reciente de Assista; actualice Assista.</translation>
        </message>
        <message>
            <source>{file} was written by a newer version of Assista; update Assista to sync.</source>
            <translation>{file} lo escribió una versión más reciente de Assista; actualice Assista para sincronizar.</translation>
        </message>
        <message>
            <source>Another sync of this data folder is running; this one was skipped.</source>
            <translation>Se está ejecutando otra sincronización de esta carpeta de datos; esta se omitió.</translation>
        </message>
        <message>
            <source>A change on this device is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Un cambio en este dispositivo ocupa {size}, más de lo que el destino de sincronización {target} acepta en una subida ({limit}); se queda en este dispositivo. Elimínelo, o aumente el límite de subida del servidor, para volver a sincronizar.</translation>
        </message>
        <message>
            <source>A message in the chat {chat} is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>Un mensaje del chat {chat} ocupa {size}, más de lo que el destino de sincronización {target} acepta en una subida ({limit}); se queda en este dispositivo. Elimínelo, o aumente el límite de subida del servidor, para volver a sincronizar.</translation>
        </message>
        <message>
            <source>The sync target {target} does not hold {count} of the files it accepted: the server lost them. Nothing is lost here; the next sync sends them again.</source>
            <translation>El destino de sincronización {target} no conserva {count} de los archivos que aceptó: el servidor los perdió. Aquí no se pierde nada; la próxima sincronización los enviará de nuevo.</translation>
        </message>
        <message>
            <source>{file} disappeared from the sync target during the sync; nothing was changed here, the next sync will read it.</source>
            <translation>{file} desapareció del destino de sincronización durante la sincronización; aquí no se cambió nada, la próxima sincronización lo leerá.</translation>
        </message>
        <message>
            <source>The sync target {target} lost {file}.</source>
            <translation>El destino de sincronización {target} perdió {file}.</translation>
        </message>
        <message>
            <source>The sync target {target} refused the credentials (HTTP {status}); check the user name and the password. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} rechazó las credenciales (HTTP {status}); compruebe el nombre de usuario y la contraseña. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} refused access (HTTP {status}); check the credentials and the path. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} denegó el acceso (HTTP {status}); compruebe las credenciales y la ruta. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} has no such folder or bucket (HTTP {status}). Nothing was changed here.</source>
            <translation>El destino de sincronización {target} no tiene esa carpeta o bucket (HTTP {status}). Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} refused a file as too large (HTTP {status}). Nothing was changed here.</source>
            <translation>El destino de sincronización {target} rechazó un archivo por demasiado grande (HTTP {status}). Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} is out of space (HTTP {status}); free some space on it. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} no tiene espacio (HTTP {status}); libere espacio en él. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} failed (HTTP {status}); try again later. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} falló (HTTP {status}); inténtelo más tarde. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} answered HTTP {status}. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} respondió HTTP {status}. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} sent more than {limit}, so it was not read (the server or a proxy in between is broken). Nothing was changed here.</source>
            <translation>El destino de sincronización {target} envió más de {limit}, así que no se leyó (el servidor o un proxy intermedio funciona mal). Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The sync target {target} did not answer in time; your data here was not changed and the next sync will try again.</source>
            <translation>El destino de sincronización {target} no respondió a tiempo; sus datos aquí no se cambiaron y la próxima sincronización lo volverá a intentar.</translation>
        </message>
        <message>
            <source>The sync target {target} cannot be reached; your data here was not changed and the next sync will try again.</source>
            <translation>No se puede acceder al destino de sincronización {target}; sus datos aquí no se cambiaron y la próxima sincronización lo volverá a intentar.</translation>
        </message>
        <message>
            <source>The sync target {target} dropped the connection; your data here was not changed and the next sync will try again.</source>
            <translation>El destino de sincronización {target} cortó la conexión; sus datos aquí no se cambiaron y la próxima sincronización lo volverá a intentar.</translation>
        </message>
        <message>
            <source>The sync target {target} failed; your data here was not changed and the next sync will try again.</source>
            <translation>El destino de sincronización {target} falló; sus datos aquí no se cambiaron y la próxima sincronización lo volverá a intentar.</translation>
        </message>
        <message>
            <source>The sync folder {target} failed. Nothing was changed here.</source>
            <translation>La carpeta de sincronización {target} falló. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>A file URL names a folder on this machine by its full path: file:///path ({url}).</source>
            <translation>Una URL file indica una carpeta de este equipo por su ruta completa: file:///path ({url}).</translation>
        </message>
        <message>
            <source>{file} in the sync folder {target} is larger than {limit}: not a file Assista wrote. Nothing was changed here.</source>
            <translation>{file} en la carpeta de sincronización {target} ocupa más de {limit}: no es un archivo escrito por Assista. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The S3 URL {url} has no bucket: s3://bucket/prefix.</source>
            <translation>La URL de S3 {url} no tiene bucket: s3://bucket/prefix.</translation>
        </message>
        <message>
            <source>S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.</source>
            <translation>La sincronización con S3 necesita que AWS_ACCESS_KEY_ID y AWS_SECRET_ACCESS_KEY estén definidas.</translation>
        </message>
        <message>
            <source>The sync target {target} sent a list of files that cannot be read. Nothing was changed here.</source>
            <translation>El destino de sincronización {target} envió una lista de archivos que no se puede leer. Aquí no se cambió nada.</translation>
        </message>
        <message>
            <source>The WebDAV URL {url} has no host.</source>
            <translation>La URL de WebDAV {url} no tiene host.</translation>
        </message>
        <message>
            <source>Put the WebDAV password in {variable}, not in the URL.</source>
            <translation>Ponga la contraseña de WebDAV en {variable}, no en la URL.</translation>
        </message>
        <message>
            <source>Cannot read {file}.</source>
            <translation>No se puede leer {file}.</translation>
        </message>
        <message>
            <source>{file} is not a file.</source>
            <translation>{file} no es un archivo.</translation>
        </message>
        <message>
            <source>{file} is empty.</source>
            <translation>{file} está vacío.</translation>
        </message>
        <message>
            <source>{file} is not UTF-8 text.</source>
            <translation>{file} no es texto UTF-8.</translation>
        </message>
        <message>
            <source>{file} is not valid CSV.</source>
            <translation>{file} no es un CSV válido.</translation>
        </message>
        <message>
            <source>{file} is not a PDF (its content does not start like one: a damaged download or another kind of file).</source>
            <translation>{file} no es un PDF (su contenido no empieza como uno: una descarga dañada u otro tipo de archivo).</translation>
        </message>
        <message>
            <source>{file} is password-protected; open it with its password and save an unprotected copy to attach it.</source>
            <translation>{file} está protegido con contraseña; ábralo con su contraseña y guarde una copia sin protección para adjuntarla.</translation>
        </message>
        <message>
            <source>{file} is too large to attach ({size} MB; the limit is {limit} MB).</source>
            <translation>{file} es demasiado grande para adjuntarlo ({size} MB; el límite es {limit} MB).</translation>
        </message>
        <message>
            <source>{file} is too large to read ({size}; the limit is {limit} MB).</source>
            <translation>{file} es demasiado grande para leerlo ({size}; el límite es {limit} MB).</translation>
        </message>
        <message>
            <source>{file} unpacks to more than {limit} MB; it is not read.</source>
            <translation>{file} ocupa más de {limit} MB al descomprimirse; no se lee.</translation>
        </message>
        <message>
            <source>{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code).</source>
            <translation>{file} no es un archivo de texto ni un documento compatible (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, código fuente).</translation>
        </message>
        <message>
            <source>{file} has no text to read.</source>
            <translation>{file} no tiene texto que leer.</translation>
        </message>
        <message>
            <source>{file} has no text to read (scanned pages without a text layer?).</source>
            <translation>{file} no tiene texto que leer (¿páginas escaneadas sin capa de texto?).</translation>
        </message>
        <message>
            <source>{file} is damaged.</source>
            <translation>{file} está dañado.</translation>
        </message>
        <message>
            <source>{file} is damaged or not a real {kind} file.</source>
            <translation>{file} está dañado o no es un archivo {kind} real.</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>Una base de conocimiento necesita un nombre.</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Ya hay una base de conocimiento llamada {name}.</translation>
        </message>
        <message>
            <source>There is no knowledge base named {name}.</source>
            <translation>No hay ninguna base de conocimiento llamada {name}.</translation>
        </message>
        <message>
            <source>No such file or folder: {paths}.</source>
            <translation>No existe el archivo o la carpeta: {paths}.</translation>
        </message>
        <message>
            <source>{file} is too large to index.</source>
            <translation>{file} es demasiado grande para indexarlo.</translation>
        </message>
        <message>
            <source>{file} is a link to nothing.</source>
            <translation>{file} es un enlace que no apunta a nada.</translation>
        </message>
        <message>
            <source>{file} is a link out of the folder (links are followed only inside it).</source>
            <translation>{file} es un enlace fuera de la carpeta (los enlaces solo se siguen dentro de ella).</translation>
        </message>
        <message>
            <source>There is no embedding API {kind}.</source>
            <translation>No hay ninguna API de embeddings {kind}.</translation>
        </message>
        <message>
            <source>Providers of the kind {kind} cannot make embeddings.</source>
            <translation>Los proveedores del tipo {kind} no pueden crear embeddings.</translation>
        </message>
        <message>
            <source>The embedding request failed.</source>
            <translation>La solicitud de embeddings falló.</translation>
        </message>
        <message>
            <source>The embedding model {model} at {url} cannot be used; nothing was changed.</source>
            <translation>No se puede usar el modelo de embeddings {model} en {url}; no se cambió nada.</translation>
        </message>
        <message>
            <source>No MCP servers are running.</source>
            <translation>No hay servidores MCP en ejecución.</translation>
        </message>
        <message>
            <source>There is no MCP server named {name}.</source>
            <translation>No hay ningún servidor MCP llamado {name}.</translation>
        </message>
        <message>
            <source>There is already an MCP server named {name}.</source>
            <translation>Ya hay un servidor MCP llamado {name}.</translation>
        </message>
        <message>
            <source>The prompt {prompt} needs {names}.</source>
            <translation>El prompt {prompt} necesita {names}.</translation>
        </message>
        <message>
            <source>These values are required: {names}.</source>
            <translation>Estos valores son obligatorios: {names}.</translation>
        </message>
        <message>
            <source>The MCP registry could not be read and there is no saved copy yet.</source>
            <translation>No se pudo leer el registro de MCP y todavía no hay ninguna copia guardada.</translation>
        </message>
        <message>
            <source>The MCP configuration is not valid JSON (line {line}).</source>
            <translation>La configuración de MCP no es JSON válido (línea {line}).</translation>
        </message>
        <message>
            <source>Cannot read the MCP configuration {file}.</source>
            <translation>No se puede leer la configuración de MCP {file}.</translation>
        </message>
        <message>
            <source>The MCP configuration must be a JSON object with an mcpServers key.</source>
            <translation>La configuración de MCP debe ser un objeto JSON con una clave mcpServers.</translation>
        </message>
        <message>
            <source>The MCP configuration holds a single server without a name: put it under mcpServers, with its name as the key.</source>
            <translation>La configuración de MCP contiene un único servidor sin nombre: póngalo dentro de mcpServers, con su nombre como clave.</translation>
        </message>
        <message>
            <source>mcpServers must map server names to their settings.</source>
            <translation>mcpServers debe asociar nombres de servidor con sus ajustes.</translation>
        </message>
        <message>
            <source>The MCP configuration lists no servers.</source>
            <translation>La configuración de MCP no incluye ningún servidor.</translation>
        </message>
        <message>
            <source>MCP server {server}: its settings must be a JSON object.</source>
            <translation>Servidor MCP {server}: sus ajustes deben ser un objeto JSON.</translation>
        </message>
        <message>
            <source>MCP server {server}: {key} must be an object of strings.</source>
            <translation>Servidor MCP {server}: {key} debe ser un objeto de cadenas.</translation>
        </message>
        <message>
            <source>MCP server {server}: unknown transport {transport}.</source>
            <translation>Servidor MCP {server}: transporte desconocido {transport}.</translation>
        </message>
        <message>
            <source>The settings of MCP server {server} are not valid.</source>
            <translation>Los ajustes del servidor MCP {server} no son válidos.</translation>
        </message>
    </context>
    <context>
        <name>ExchangeView</name>
        <message>
            <source>Find in the request</source>
            <translation>Buscar en la solicitud</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Solicitud</translation>
        </message>
        <message>
            <source>Find in the response</source>
            <translation>Buscar en la respuesta</translation>
        </message>
        <message>
            <source>Response</source>
            <translation>Respuesta</translation>
        </message>
        <message>
            <source>Find in this event</source>
            <translation>Buscar en este evento</translation>
        </message>
        <message>
            <source>Event</source>
            <translation>Evento</translation>
        </message>
        <message>
            <source>Events (%1)</source>
            <translation>Eventos (%1)</translation>
        </message>
        <message>
            <source>Raw bytes (%1)</source>
            <translation>Bytes sin procesar (%1)</translation>
        </message>
        <message>
            <source>Timings</source>
            <translation>Tiempos</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Reproducir</translation>
        </message>
        <message>
            <source>Stream events</source>
            <translation>Eventos del stream</translation>
        </message>
        <message>
            <source>Arrived</source>
            <translation>Llegada</translation>
        </message>
        <message>
            <source>Bytes</source>
            <translation>Bytes</translation>
        </message>
        <message>
            <source>Raw bytes received</source>
            <translation>Bytes sin procesar recibidos</translation>
        </message>
        <message>
            <source>Find in these bytes</source>
            <translation>Buscar en estos bytes</translation>
        </message>
        <message>
            <source>Raw bytes</source>
            <translation>Bytes sin procesar</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Datos</translation>
        </message>
        <message>
            <source>%1 (counted from the events)</source>
            <translation>%1 (contados a partir de los eventos)</translation>
        </message>
        <message>
            <source>Time to headers</source>
            <translation>Tiempo hasta las cabeceras</translation>
        </message>
        <message>
            <source>Time to first token</source>
            <translation>Tiempo hasta el primer token</translation>
        </message>
        <message>
            <source>Time to last token</source>
            <translation>Tiempo hasta el último token</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>Total</translation>
        </message>
        <message>
            <source>Output tokens</source>
            <translation>Tokens de salida</translation>
        </message>
        <message>
            <source>Tokens per second</source>
            <translation>Tokens por segundo</translation>
        </message>
        <message>
            <source>Retries</source>
            <translation>Reintentos</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>Find in this chat</source>
            <translation>Buscar en este chat</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>Coincidencia anterior (Mayús+Intro)</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>Coincidencia anterior</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>Coincidencia siguiente (Intro)</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>Coincidencia siguiente</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>Cerrar (Esc)</translation>
        </message>
        <message>
            <source>Close the find bar</source>
            <translation>Cerrar la barra de búsqueda</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>Sin coincidencias</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n coincidencia</numerusform>
                <numerusform>%n coincidencias</numerusform>
            </translation>
        </message>
        <message>
            <source>{current} of {total}</source>
            <translation>{current} de {total}</translation>
        </message>
    </context>
    <context>
        <name>FindableText</name>
        <message>
            <source>Find</source>
            <translation>Buscar</translation>
        </message>
        <message numerus="yes">
            <source>%n found</source>
            <translation>
                <numerusform>%n encontrado</numerusform>
                <numerusform>%n encontrados</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>GlobalShortcut</name>
        <message>
            <source>Open the Assista quick-ask window</source>
            <translation>Abrir la ventana de pregunta rápida de Assista</translation>
        </message>
        <message>
            <source>Registered with the desktop as {trigger}.</source>
            <translation>Registrado en el escritorio como {trigger}.</translation>
        </message>
        <message>
            <source>Registered: {shortcut} opens quick ask from any application.</source>
            <translation>Registrado: {shortcut} abre la pregunta rápida desde cualquier aplicación.</translation>
        </message>
        <message>
            <source>Waiting for the desktop to confirm the shortcut…</source>
            <translation>Esperando a que el escritorio confirme el atajo…</translation>
        </message>
        <message>
            <source>{shortcut} is taken by another program: choose another combination.</source>
            <translation>{shortcut} ya lo usa otro programa: elige otra combinación.</translation>
        </message>
        <message>
            <source>The desktop did not allow the shortcut. Choose it again, or bind the command “assista quick --selection” in the desktop's keyboard settings.</source>
            <translation>El escritorio no permitió el atajo. Elígelo de nuevo o asigna el comando «assista quick --selection» en los ajustes de teclado del escritorio.</translation>
        </message>
        <message>
            <source>Not available on this desktop: bind the command “assista quick --selection” to a shortcut in the desktop's keyboard settings.</source>
            <translation>No disponible en este escritorio: asigna el comando «assista quick --selection» a un atajo en los ajustes de teclado del escritorio.</translation>
        </message>
        <message>
            <source>No global shortcut. The command “assista quick --selection” can be bound to one in the desktop's keyboard settings.</source>
            <translation>Sin atajo global. El comando «assista quick --selection» se puede asignar a uno en los ajustes de teclado del escritorio.</translation>
        </message>
        <message>
            <source>A global shortcut needs Ctrl, Alt or Meta with the key: on its own the key could not be typed anywhere else.</source>
            <translation>Un atajo global necesita Ctrl, Alt o Meta con la tecla: sola, la tecla ya no se podría escribir en ningún otro sitio.</translation>
        </message>
        <message>
            <source>This key cannot be part of a global shortcut: choose a letter, digit, function key, Space or an arrow key.</source>
            <translation>Esta tecla no puede formar parte de un atajo global: elija una letra, un dígito, una tecla de función, Espacio o una flecha.</translation>
        </message>
        <message>
            <source>A global shortcut is one key with Ctrl, Alt or Meta, not a sequence of keys.</source>
            <translation>Un atajo global es una tecla con Ctrl, Alt o Meta, no una secuencia de teclas.</translation>
        </message>
    </context>
    <context>
        <name>HitDelegate</name>
        <message>
            <source>You</source>
            <translation>Tú</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>Asistente</translation>
        </message>
        <message>
            <source>Tool result</source>
            <translation>Resultado de herramienta</translation>
        </message>
        <message>
            <source>System</source>
            <translation>Sistema</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Título</translation>
        </message>
        <message>
            <source>archived</source>
            <translation>archivado</translation>
        </message>
    </context>
    <context>
        <name>ImportExport</name>
        <message>
            <source>Open a chat to export it (or use Export all chats…).</source>
            <translation>Abre un chat para exportarlo (o usa Exportar todos los chats…).</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>Exportar chat</translation>
        </message>
        <message>
            <source>Export all chats</source>
            <translation>Exportar todos los chats</translation>
        </message>
        <message>
            <source>Import chats</source>
            <translation>Importar chats</translation>
        </message>
        <message>
            <source>all chats</source>
            <translation>todos los chats</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n chat</numerusform>
                <numerusform>%n chats</numerusform>
            </translation>
        </message>
        <message>
            <source>Export to {file} failed: {error}</source>
            <translation>Error al exportar a {file}: {error}</translation>
        </message>
        <message>
            <source>Exported {what} as {format} to {file} ({size} bytes).</source>
            <translation>Exportado {what} como {format} a {file} ({size} bytes).</translation>
        </message>
        <message>
            <source>Import of {file} failed: {error}</source>
            <translation>Error al importar {file}: {error}</translation>
        </message>
        <message>
            <source>Import finished</source>
            <translation>Importación terminada</translation>
        </message>
    </context>
    <context>
        <name>InspectorPanel</name>
        <message>
            <source>HTTP status: %1</source>
            <translation>Estado HTTP: %1</translation>
        </message>
        <message>
            <source>Retries:</source>
            <translation>Reintentos:</translation>
        </message>
        <message>
            <source>  attempt %1 at %2, waited %3 s: %4</source>
            <translation>  intento %1 a las %2, esperó %3 s: %4</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>Error: %1</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspector de solicitudes</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>Solicitud</translation>
        </message>
        <message>
            <source>Request %1 of %2: %3 · %4 · HTTP %5</source>
            <translation>Solicitud %1 de %2: %3 · %4 · HTTP %5</translation>
        </message>
        <message>
            <source>Copy as curl</source>
            <translation>Copiar como curl</translation>
        </message>
        <message>
            <source>The request as a curl command; the key is an environment variable, never the key itself</source>
            <translation>La solicitud como comando curl; la clave aparece como variable de entorno, nunca la clave misma</translation>
        </message>
        <message>
            <source>Copy as JSON</source>
            <translation>Copiar como JSON</translation>
        </message>
        <message>
            <source>Everything recorded for this request, redacted</source>
            <translation>Todo lo registrado de esta solicitud, con datos sensibles ocultos</translation>
        </message>
        <message>
            <source>%1 · %2 · HTTP %3 · %4</source>
            <translation>%1 · %2 · HTTP %3 · %4</translation>
        </message>
        <message>
            <source>Copied the curl command.</source>
            <translation>Comando curl copiado.</translation>
        </message>
        <message>
            <source>Copied the record as JSON.</source>
            <translation>Registro copiado como JSON.</translation>
        </message>
    </context>
    <context>
        <name>InspectorSettings</name>
        <message>
            <source>Record every request sent to a model</source>
            <translation>Registrar cada solicitud enviada a un modelo</translation>
        </message>
        <message>
            <source>What was sent (keys and tokens hidden), what came back and the timings, for Inspect on each answer and assista inspect</source>
            <translation>Lo enviado (claves y tokens ocultos), lo recibido y los tiempos, para Inspeccionar en cada respuesta y assista inspect</translation>
        </message>
        <message>
            <source>Recording</source>
            <translation>Registro</translation>
        </message>
        <message>
            <source> days</source>
            <translation> días</translation>
        </message>
        <message>
            <source>Keep recorded requests for</source>
            <translation>Conservar las solicitudes registradas durante</translation>
        </message>
        <message>
            <source>Keep for</source>
            <translation>Conservar durante</translation>
        </message>
        <message>
            <source> MB</source>
            <translation> MB</translation>
        </message>
        <message>
            <source>Largest size of the recorded requests</source>
            <translation>Tamaño máximo de las solicitudes registradas</translation>
        </message>
        <message>
            <source>At most</source>
            <translation>Como máximo</translation>
        </message>
        <message>
            <source>The oldest requests are deleted first, when the app starts and after each answer. They are kept in inspector.sqlite in the data folder, apart from the chats (not synced).</source>
            <translation>Las solicitudes más antiguas se eliminan primero, al iniciar la app y tras cada respuesta. Se guardan en inspector.sqlite en la carpeta de datos, aparte de los chats (no se sincronizan).</translation>
        </message>
        <message>
            <source>Delete all recorded requests</source>
            <translation>Eliminar todas las solicitudes registradas</translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n recorded requests.</source>
            <translation>
                <numerusform>Se eliminó %n solicitud registrada.</numerusform>
                <numerusform>Se eliminaron %n solicitudes registradas.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDetail</name>
        <message>
            <source>Folders and files of the knowledge base</source>
            <translation>Carpetas y archivos de la base de conocimiento</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Añadir carpeta…</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Añadir archivos…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Quitar</translation>
        </message>
        <message>
            <source>Stop indexing the selected folder or file</source>
            <translation>Dejar de indexar la carpeta o el archivo seleccionado</translation>
        </message>
        <message>
            <source>Embedding provider</source>
            <translation>Proveedor de embeddings</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>Modelo de embeddings</translation>
        </message>
        <message>
            <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
            <translation>p. ej., text-embedding-3-small, nomic-embed-text, gemini-embedding-001</translation>
        </message>
        <message>
            <source>Search it in the open chat</source>
            <translation>Buscar en ella desde el chat abierto</translation>
        </message>
        <message>
            <source>Assistants…</source>
            <translation>Asistentes…</translation>
        </message>
        <message>
            <source>Every chat with a checked assistant searches this knowledge base</source>
            <translation>Cada chat con un asistente marcado busca en esta base de conocimiento</translation>
        </message>
        <message>
            <source>Embeddings</source>
            <translation>Embeddings</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Used by</source>
            <translation>Usada por</translation>
        </message>
        <message>
            <source>Folders and files</source>
            <translation>Carpetas y archivos</translation>
        </message>
        <message>
            <source>Index now</source>
            <translation>Indexar ahora</translation>
        </message>
        <message>
            <source>Indexing progress</source>
            <translation>Progreso de la indexación</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Cancelar</translation>
        </message>
        <message>
            <source>Cancel indexing</source>
            <translation>Cancelar indexación</translation>
        </message>
        <message>
            <source>No knowledge base yet</source>
            <translation>Aún no hay bases de conocimiento</translation>
        </message>
        <message>
            <source>Full text only</source>
            <translation>Solo texto completo</translation>
        </message>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n archivo</numerusform>
                <numerusform>%n archivos</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passages</source>
            <translation>
                <numerusform>%n fragmento</numerusform>
                <numerusform>%n fragmentos</numerusform>
            </translation>
        </message>
        <message>
            <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds} s</source>
            <translation>{added} añadidos, {updated} modificados, {removed} eliminados, {unchanged} sin cambios en {seconds} s</translation>
        </message>
        <message numerus="yes">
            <source>%n files could not be read: </source>
            <translation>
                <numerusform>No se pudo leer %n archivo: </numerusform>
                <numerusform>No se pudieron leer %n archivos: </numerusform>
            </translation>
        </message>
        <message>
            <source>{files}, {chunks}; not indexed yet</source>
            <translation>{files}, {chunks}; aún sin indexar</translation>
        </message>
        <message>
            <source>{files}, {chunks}; indexed {when}</source>
            <translation>{files}, {chunks}; indexada {when}</translation>
        </message>
        <message>
            <source>No assistants yet</source>
            <translation>Aún no hay asistentes</translation>
        </message>
        <message>
            <source>Looking for files…</source>
            <translation>Buscando archivos…</translation>
        </message>
        <message>
            <source>Computing embeddings…</source>
            <translation>Calculando embeddings…</translation>
        </message>
        <message>
            <source>{done} of {total}: {path}</source>
            <translation>{done} de {total}: {path}</translation>
        </message>
        <message>
            <source>Indexing failed: {error}</source>
            <translation>Error al indexar: {error}</translation>
        </message>
        <message>
            <source>; {n} passages embedded</source>
            <translation>; {n} fragmentos con embeddings</translation>
        </message>
        <message>
            <source> (cancelled: what was done is kept)</source>
            <translation> (cancelado: se conserva lo hecho)</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>Añadir una carpeta</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>Añadir archivos</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDialog</name>
        <message>
            <source>Knowledge</source>
            <translation>Conocimiento</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Bases de conocimiento</translation>
        </message>
        <message>
            <source>New…</source>
            <translation>Nueva…</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>Cambiar nombre…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Eliminar</translation>
        </message>
        <message>
            <source>New knowledge base</source>
            <translation>Nueva base de conocimiento</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>Nombre:</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>Ya existe una base de conocimiento llamada {name}.</translation>
        </message>
        <message>
            <source>Rename knowledge base</source>
            <translation>Cambiar nombre de la base de conocimiento</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>Eliminar base de conocimiento</translation>
        </message>
        <message>
            <source>Delete {name} and its index? Your files are not touched.</source>
            <translation>¿Eliminar {name} y su índice? Tus archivos no se tocan.</translation>
        </message>
    </context>
    <context>
        <name>LanguageChoice</name>
        <message>
            <source>Language</source>
            <translation>Idioma</translation>
        </message>
        <message>
            <source>A new language shows after the app is restarted.</source>
            <translation>El nuevo idioma se aplica al reiniciar la app.</translation>
        </message>
    </context>
    <context>
        <name>Languages</name>
        <message>
            <source>System default</source>
            <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
            <translation>Predeterminado del sistema</translation>
        </message>
    </context>
    <context>
        <name>Launch</name>
        <message>
            <source> and </source>
            <translation> y </translation>
        </message>
        <message>
            <source>Found {servers} running on this computer</source>
            <translation>Se encontró {servers} en ejecución en este equipo</translation>
        </message>
        <message>
            <source>{app} could not open its data folder:

{error}</source>
            <translation>{app} no pudo abrir su carpeta de datos:

{error}</translation>
        </message>
        <message>
            <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
            <translation>{app} ya se está ejecutando con los datos de {folder}. Ciérralo primero o inicia con --data-dir.</translation>
        </message>
        <message>
            <source>{app} could not open its data:

{error}</source>
            <translation>{app} no pudo abrir sus datos:

{error}</translation>
        </message>
    </context>
    <context>
        <name>LocaleFormat</name>
        <message>
            <source>{number}k</source>
            <translation>{number} mil</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Opening…</source>
            <translation>Abriendo…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <extracomment>The menus in order (the skeleton shows them disabled until the real ones replace them)</extracomment>
            <translation>&amp;Archivo</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>&amp;Nuevo chat</translation>
        </message>
        <message>
            <source>New t&amp;emporary chat</source>
            <translation>Nuevo chat t&amp;emporal</translation>
        </message>
        <message>
            <source>Choose &amp;workspace folder…</source>
            <translation>Elegir carpeta de &amp;trabajo…</translation>
        </message>
        <message>
            <source>Install &amp;extension…</source>
            <translation>Instalar &amp;extensión…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Salir</translation>
        </message>
        <message>
            <source>&amp;Settings</source>
            <translation>&amp;Configuración</translation>
        </message>
        <message>
            <source>P&amp;references…</source>
            <translation>P&amp;referencias…</translation>
        </message>
        <message>
            <source>&amp;Providers…</source>
            <translation>&amp;Proveedores…</translation>
        </message>
        <message>
            <source>Model p&amp;rices…</source>
            <translation>P&amp;recios de modelos…</translation>
        </message>
        <message>
            <source>&amp;Tools…</source>
            <translation>&amp;Herramientas…</translation>
        </message>
        <message>
            <source>&amp;MCP servers…</source>
            <translation>Servidores &amp;MCP…</translation>
        </message>
        <message>
            <source>&amp;Knowledge…</source>
            <translation>&amp;Conocimiento…</translation>
        </message>
        <message>
            <source>S&amp;ync…</source>
            <translation>S&amp;incronización…</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>&amp;Ver</translation>
        </message>
        <message>
            <source>Toggle &amp;tool activity</source>
            <translation>Mostrar u ocultar actividad de &amp;herramientas</translation>
        </message>
        <message>
            <source>Show &amp;chat list</source>
            <translation>Mostrar lista de &amp;chats</translation>
        </message>
        <message>
            <source>Focus &amp;message box</source>
            <translation>Ir al cuadro de &amp;mensaje</translation>
        </message>
        <message>
            <source>Go to pending &amp;approval</source>
            <translation>Ir a la &amp;aprobación pendiente</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>A&amp;yuda</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>&amp;Atajos de teclado</translation>
        </message>
        <message>
            <source>Open &amp;log folder</source>
            <translation>Abrir carpeta de &amp;registros</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>&amp;Acerca de</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>Detenido en el límite de rondas de herramientas</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Detenido</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>Añade un proveedor para empezar a chatear.</translation>
        </message>
        <message>
            <source>Preferences saved</source>
            <translation>Preferencias guardadas</translation>
        </message>
        <message>
            <source>Choose workspace folder</source>
            <translation>Elegir carpeta de trabajo</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>Instalar extensión</translation>
        </message>
        <message>
            <source>MCP bundles (*.mcpb *.dxt)</source>
            <translation>Paquetes MCP (*.mcpb *.dxt)</translation>
        </message>
    </context>
    <context>
        <name>McpAttachMenu</name>
        <message>
            <source>Files…</source>
            <translation>Archivos…</translation>
        </message>
        <message>
            <source>From MCP server…</source>
            <translation>Desde servidor MCP…</translation>
        </message>
        <message>
            <source>Read again from {0}: the server changed it</source>
            <translation>Se volvió a leer de {0}: el servidor lo cambió</translation>
        </message>
    </context>
    <context>
        <name>McpCatalogDialog</name>
        <message>
            <source>MCP server catalog</source>
            <translation>Catálogo de servidores MCP</translation>
        </message>
        <message>
            <source>Search servers</source>
            <translation>Buscar servidores</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Actualizar</translation>
        </message>
        <message>
            <source>Read the registry again</source>
            <translation>Volver a leer el registro</translation>
        </message>
        <message>
            <source>Servers in the catalog</source>
            <translation>Servidores del catálogo</translation>
        </message>
        <message>
            <source>How to install</source>
            <translation>Cómo instalar</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>Añadir servidor</translation>
        </message>
        <message>
            <source>Showing the saved copy; reading the registry…</source>
            <translation>Mostrando la copia guardada; leyendo el registro…</translation>
        </message>
        <message>
            <source>Reading the MCP registry…</source>
            <translation>Leyendo el registro MCP…</translation>
        </message>
        <message>
            <source>Offline ({0}): showing the copy saved on {1}.</source>
            <translation>Sin conexión ({0}): se muestra la copia guardada el {1}.</translation>
        </message>
        <message numerus="yes">
            <source>%n server(s)</source>
            <translation>
                <numerusform>%n servidor</numerusform>
                <numerusform>%n servidores</numerusform>
            </translation>
        </message>
        <message>
            <source>Choose a server</source>
            <translation>Elige un servidor</translation>
        </message>
        <message>
            <source>This server has no package or address the app can install (for example a container image).</source>
            <translation>Este servidor no tiene ningún paquete ni dirección que la app pueda instalar (por ejemplo, una imagen de contenedor).</translation>
        </message>
        <message>
            <source>Cannot add it: {0}</source>
            <translation>No se puede añadir: {0}</translation>
        </message>
    </context>
    <context>
        <name>McpClientFields</name>
        <message>
            <source>only if its sign-in asks for an app registered by hand</source>
            <translation>solo si su inicio de sesión pide una app registrada a mano</translation>
        </message>
        <message>
            <source>stored in the keyring; type to replace it</source>
            <translation>guardado en el llavero; escribe para sustituirlo</translation>
        </message>
        <message>
            <source>optional; kept in the keyring</source>
            <translation>opcional; se guarda en el llavero</translation>
        </message>
        <message>
            <source>any free port</source>
            <translation>cualquier puerto libre</translation>
        </message>
        <message>
            <source>The port of the redirect URL registered with the app, if its sign-in wants an exact one</source>
            <translation>El puerto de la URL de redirección registrada en la app, si su inicio de sesión exige uno concreto</translation>
        </message>
        <message>
            <source>Client &amp;ID</source>
            <translation>&amp;ID de cliente</translation>
        </message>
        <message>
            <source>Client s&amp;ecret</source>
            <translation>S&amp;ecreto de cliente</translation>
        </message>
        <message>
            <source>Callback &amp;port</source>
            <translation>&amp;Puerto de retorno</translation>
        </message>
        <message>
            <source>Redirect URL to register:
{address}</source>
            <translation>URL de redirección que registrar:
{address}</translation>
        </message>
    </context>
    <context>
        <name>McpDialog</name>
        <message>
            <source>MCP servers</source>
            <translation>Servidores MCP</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
            <translation>Aún no hay servidores MCP. Añade uno (un comando como «npx -y @modelcontextprotocol/server-filesystem ~/notes» o una URL) o importa tu configuración de Claude Desktop.</translation>
        </message>
        <message>
            <source>Save and start</source>
            <translation>Guardar e iniciar</translation>
        </message>
        <message>
            <source>Save the servers and (re)start them</source>
            <translation>Guardar los servidores e (re)iniciarlos</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>Añadir</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importar</translation>
        </message>
        <message>
            <source>From a file…</source>
            <translation>Desde un archivo…</translation>
        </message>
        <message>
            <source>Paste JSON…</source>
            <translation>Pegar JSON…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Quitar</translation>
        </message>
        <message>
            <source>new — say how to reach it, then Save</source>
            <translation>nuevo: indica cómo conectarse y pulsa Guardar</translation>
        </message>
        <message>
            <source>switched off</source>
            <translation>desactivado</translation>
        </message>
        <message>
            <source>not started — Save to start it</source>
            <translation>sin iniciar: guarda para iniciarlo</translation>
        </message>
        <message>
            <source>failed: {error}</source>
            <translation>error: {error}</translation>
        </message>
        <message>
            <source>no reason given</source>
            <translation>sin motivo</translation>
        </message>
        <message>
            <source>starting…</source>
            <translation>iniciando…</translation>
        </message>
        <message>
            <source>restarting…</source>
            <translation>reiniciando…</translation>
        </message>
        <message>
            <source> (last error: {error})</source>
            <translation> (último error: {error})</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>detenido</translation>
        </message>
        <message>
            <source> · changes not applied yet (Save)</source>
            <translation> · cambios aún sin aplicar (Guardar)</translation>
        </message>
        <message>
            <source>(no name)</source>
            <translation>(sin nombre)</translation>
        </message>
        <message>
            <source>Remove MCP server</source>
            <translation>Quitar servidor MCP</translation>
        </message>
        <message>
            <source>Remove {name}? Its tools leave every chat, and its stored keys and sign-in are deleted, when you Save.</source>
            <translation>¿Quitar {name}? Al guardar, sus herramientas desaparecen de todos los chats y se eliminan sus claves guardadas y su inicio de sesión.</translation>
        </message>
        <message>
            <source>Removed {name}. Save to stop it.</source>
            <translation>{name} quitado. Guarda para detenerlo.</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>Importar servidores MCP</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>Archivos JSON (*.json);;Todos los archivos (*)</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n servers: {names}. Save to start them.</source>
            <translation>
                <numerusform>Se importó %n servidor: {names}. Guarda para iniciarlo.</numerusform>
                <numerusform>Se importaron %n servidores: {names}. Guarda para iniciarlos.</numerusform>
            </translation>
        </message>
        <message>
            <source>There are two servers named {name}; rename one.</source>
            <translation>Hay dos servidores llamados {name}; cambia el nombre de uno.</translation>
        </message>
        <message>
            <source>Saved. Starting the servers…</source>
            <translation>Guardado. Iniciando los servidores…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Guardado.</translation>
        </message>
        <message>
            <source>{name} is not started: Save to start it.</source>
            <translation>{name} no está iniciado: guarda para iniciarlo.</translation>
        </message>
        <message>
            <source>This server</source>
            <translation>Este servidor</translation>
        </message>
        <message>
            <source>Restarting {name}…</source>
            <translation>Reiniciando {name}…</translation>
        </message>
        <message>
            <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
            <translation>Tienes cambios sin guardar: guárdalos o pulsa Cerrar otra vez para descartarlos.</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>Explorar</translation>
        </message>
        <message>
            <source>Servers listed in the official MCP registry</source>
            <translation>Servidores del registro oficial de MCP</translation>
        </message>
    </context>
    <context>
        <name>McpResourceDialog</name>
        <message>
            <source>Attach from an MCP server</source>
            <translation>Adjuntar desde un servidor MCP</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>Recursos</translation>
        </message>
        <message>
            <source>Attach</source>
            <translation>Adjuntar</translation>
        </message>
        <message>
            <source>No running MCP server offers resources.</source>
            <translation>Ningún servidor MCP en marcha ofrece recursos.</translation>
        </message>
        <message>
            <source>Reading {0}…</source>
            <translation>Leyendo {0}…</translation>
        </message>
        <message>
            <source>Cannot attach {0}: {1}</source>
            <translation>No se puede adjuntar {0}: {1}</translation>
        </message>
    </context>
    <context>
        <name>McpServerForm</name>
        <message>
            <source>Command (stdio)</source>
            <translation>Comando (stdio)</translation>
        </message>
        <message>
            <source>URL (Streamable HTTP)</source>
            <translation>URL (Streamable HTTP)</translation>
        </message>
        <message>
            <source>URL (SSE, legacy)</source>
            <translation>URL (SSE, antiguo)</translation>
        </message>
        <message>
            <source>line {number}: write it as {example}</source>
            <translation>línea {number}: escríbela como {example}</translation>
        </message>
        <message>
            <source>Shown in lists; also the prefix of its tools' names</source>
            <translation>Se muestra en las listas; también es el prefijo de los nombres de sus herramientas</translation>
        </message>
        <message>
            <source>Start this server</source>
            <translation>Iniciar este servidor</translation>
        </message>
        <message>
            <source>npx, uvx, python, /path/to/server…</source>
            <translation>npx, uvx, python, /ruta/al/servidor…</translation>
        </message>
        <message>
            <source>-y @modelcontextprotocol/server-filesystem "~/My notes"</source>
            <translation>-y @modelcontextprotocol/server-filesystem "~/Mis notas"</translation>
        </message>
        <message>
            <source>KEY=value, one per line</source>
            <translation>CLAVE=valor, una por línea</translation>
        </message>
        <message>
            <source>working folder (optional)</source>
            <translation>carpeta de trabajo (opcional)</translation>
        </message>
        <message>
            <source>https://example.com/mcp</source>
            <translation>https://example.com/mcp</translation>
        </message>
        <message>
            <source>Authorization: Bearer …, one per line</source>
            <translation>Authorization: Bearer …, una por línea</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Nombre</translation>
        </message>
        <message>
            <source>&amp;Connect with</source>
            <translation>&amp;Conectar con</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>&amp;Comando</translation>
        </message>
        <message>
            <source>&amp;Arguments</source>
            <translation>&amp;Argumentos</translation>
        </message>
        <message>
            <source>&amp;Environment</source>
            <translation>&amp;Entorno</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>Car&amp;peta</translation>
        </message>
        <message>
            <source>&amp;URL</source>
            <translation>&amp;URL</translation>
        </message>
        <message>
            <source>&amp;Headers</source>
            <translation>&amp;Cabeceras</translation>
        </message>
        <message>
            <source>Sign-in app</source>
            <translation>App de inicio de sesión</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>stderr del servidor</translation>
        </message>
        <message>
            <source>Server status</source>
            <translation>Estado del servidor</translation>
        </message>
        <message>
            <source>Restart</source>
            <translation>Reiniciar</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>Mostrar stderr</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Herramienta</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Activa</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Política</translation>
        </message>
        <message>
            <source>Tools of this server</source>
            <translation>Herramientas de este servidor</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>Entorno</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>Cabeceras</translation>
        </message>
        <message>
            <source>Arguments: a quotation mark is not closed, or the text ends with a backslash.</source>
            <translation>Argumentos: hay unas comillas sin cerrar, o el texto termina con una barra invertida.</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Política de {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Predeterminado ({policy})</translation>
        </message>
        <message>
            <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
            <translation>Configuración → Herramientas fija esta herramienta en {policy}, que prevalece sobre esta opción</translation>
        </message>
        <message>
            <source>Sign in to use its tools.</source>
            <translation>Inicia sesión para usar sus herramientas.</translation>
        </message>
        <message>
            <source>Its tools are listed here once it runs.</source>
            <translation>Sus herramientas aparecerán aquí cuando esté en marcha.</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>Ocultar stderr</translation>
        </message>
        <message>
            <source>(the server is not started)</source>
            <translation>(el servidor no está iniciado)</translation>
        </message>
        <message>
            <source>(nothing written yet)</source>
            <translation>(aún no ha escrito nada)</translation>
        </message>
    </context>
    <context>
        <name>McpSignInRow</name>
        <message>
            <source>Sign-in status</source>
            <translation>Estado del inicio de sesión</translation>
        </message>
        <message>
            <source>Sign in</source>
            <translation>Iniciar sesión</translation>
        </message>
        <message>
            <source>Sign in to this server in your browser</source>
            <translation>Inicia sesión en este servidor desde el navegador</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>Cerrar sesión</translation>
        </message>
        <message>
            <source>Forget this server's sign-in</source>
            <translation>Olvidar el inicio de sesión de este servidor</translation>
        </message>
        <message>
            <source>Cancel sign-in</source>
            <translation>Cancelar inicio de sesión</translation>
        </message>
        <message>
            <source>Stop waiting for the browser</source>
            <translation>Dejar de esperar al navegador</translation>
        </message>
        <message>
            <source>Signing out…</source>
            <translation>Cerrando sesión…</translation>
        </message>
        <message>
            <source>Waiting for you to finish signing in in the browser…</source>
            <translation>Esperando a que termines de iniciar sesión en el navegador…</translation>
        </message>
        <message>
            <source>This server needs you to sign in.</source>
            <translation>Este servidor requiere que inicies sesión.</translation>
        </message>
        <message>
            <source>Signed in.</source>
            <translation>Sesión iniciada.</translation>
        </message>
        <message>
            <source>No sign-in used.</source>
            <translation>No se usa inicio de sesión.</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotices</name>
        <message>
            <source>Memory removed: {fact}</source>
            <translation>Recuerdo eliminado: {fact}</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>Deshacer</translation>
        </message>
        <message>
            <source>Memory saved: {fact}</source>
            <translation>Recuerdo guardado: {fact}</translation>
        </message>
    </context>
    <context>
        <name>MemoryPage</name>
        <message>
            <source>Remember facts about me across chats</source>
            <translation>Recordar datos sobre mí entre chats</translation>
        </message>
        <message>
            <source>Off: memory is paused; no memory is sent to the model and none is saved</source>
            <translation>Desactivado: la memoria está en pausa; no se envía ningún recuerdo al modelo ni se guarda ninguno</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Memoria</translation>
        </message>
        <message>
            <source>When the assistant wants to remember something</source>
            <translation>Cuando el asistente quiere recordar algo</translation>
        </message>
        <message>
            <source>Ask me first</source>
            <translation>Preguntarme antes</translation>
        </message>
        <message>
            <source>Save without asking</source>
            <translation>Guardar sin preguntar</translation>
        </message>
        <message>
            <source>New memories</source>
            <translation>Recuerdos nuevos</translation>
        </message>
        <message>
            <source>Say “remember that…” in a chat, or the assistant may propose a memory. Memories stay on this computer; they are in exports and sync (encrypted), and are sent only in the system prompt of your chats. Temporary chats use none.</source>
            <translation>Di “recuerda que…” en un chat, o el asistente puede proponer un recuerdo. Los recuerdos se quedan en este ordenador; van en las exportaciones y en la sincronización (cifrada), y solo se envían en el mensaje del sistema de tus chats. Los chats temporales no usan ninguno.</translation>
        </message>
        <message>
            <source>Search memories…</source>
            <translation>Buscar recuerdos…</translation>
        </message>
        <message>
            <source>Search memories</source>
            <translation>Buscar recuerdos</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>Recuerdos</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>Editar…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Eliminar</translation>
        </message>
        <message>
            <source>Delete all…</source>
            <translation>Eliminar todo…</translation>
        </message>
        <message>
            <source>In a project only</source>
            <translation>Solo en un proyecto</translation>
        </message>
        <message>
            <source>In every chat</source>
            <translation>En todos los chats</translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n recuerdo</numerusform>
                <numerusform>%n recuerdos</numerusform>
            </translation>
        </message>
        <message>
            <source>No memory matches the search.</source>
            <translation>Ningún recuerdo coincide con la búsqueda.</translation>
        </message>
        <message>
            <source>No memories yet.</source>
            <translation>Aún no hay recuerdos.</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>Editar recuerdo</translation>
        </message>
        <message>
            <source>What the assistant remembers:</source>
            <translation>Lo que recuerda el asistente:</translation>
        </message>
        <message>
            <source>Delete all memories</source>
            <translation>Eliminar todos los recuerdos</translation>
        </message>
        <message>
            <source>Delete every memory? The assistant forgets all it knows about you; this cannot be undone.</source>
            <translation>¿Eliminar todos los recuerdos? El asistente olvida todo lo que sabe de ti; no se puede deshacer.</translation>
        </message>
        <message>
            <source>Delete all</source>
            <translation>Eliminar todo</translation>
        </message>
    </context>
    <context>
        <name>MessageAccessibility</name>
        <message>
            <source>Code block, {language}</source>
            <translation>Bloque de código, {language}</translation>
        </message>
        <message>
            <source>plain text</source>
            <translation>texto sin formato</translation>
        </message>
        <message>
            <source>Equation</source>
            <translation>Ecuación</translation>
        </message>
        <message>
            <source>Quote</source>
            <translation>Cita</translation>
        </message>
        <message>
            <source>Table, {rows} rows, {columns} columns</source>
            <translation>Tabla, {rows} filas, {columns} columnas</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Razonamiento</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>Tu mensaje</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Respuesta</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Mensaje</translation>
        </message>
        <message>
            <source>Being written</source>
            <translation>Escribiéndose</translation>
        </message>
    </context>
    <context>
        <name>MessageHeader</name>
        <message>
            <source>Copy</source>
            <extracomment>Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.</extracomment>
            <translation>Copiar</translation>
        </message>
        <message>
            <source>Copy this message as Markdown (the arrow has more)</source>
            <translation>Copiar este mensaje como Markdown (la flecha tiene más opciones)</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>Copiar mensaje</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Más acciones</translation>
        </message>
        <message>
            <source>More: continue, fork into a new chat, delete</source>
            <translation>Más: continuar, bifurcar en un chat nuevo, eliminar</translation>
        </message>
        <message>
            <source>Continue this answer</source>
            <translation>Continuar esta respuesta</translation>
        </message>
        <message>
            <source>Fork into a new chat from here</source>
            <translation>Bifurcar en un chat nuevo desde aquí</translation>
        </message>
        <message>
            <source>Ask other models…</source>
            <translation>Preguntar a otros modelos…</translation>
        </message>
        <message>
            <source>Delete this and what follows…</source>
            <translation>Eliminar este y lo que sigue…</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>Leer en voz alta</translation>
        </message>
        <message>
            <source>Preview this page…</source>
            <translation>Vista previa de esta página…</translation>
        </message>
        <message>
            <source>Opens in your browser: this runs the model's code, with every network request blocked</source>
            <translation>Se abre en el navegador: ejecuta el código del modelo, con todas las solicitudes de red bloqueadas</translation>
        </message>
        <message>
            <source>Inspect the request…</source>
            <translation>Inspeccionar la solicitud…</translation>
        </message>
        <message>
            <source>What was sent, what came back, timings, Replay</source>
            <translation>Lo enviado, lo recibido, los tiempos, reproducir</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Reasoning</source>
            <translation>Razonamiento</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>Mostrar razonamiento</translation>
        </message>
        <message>
            <source>You asked to continue · {time}</source>
            <translation>Pediste que continuara · {time}</translation>
        </message>
        <message>
            <source>You · {time}</source>
            <translation>Tú · {time}</translation>
        </message>
        <message>
            <source>Assistant · {model} · {time}</source>
            <translation>Asistente · {model} · {time}</translation>
        </message>
        <message>
            <source>Assistant · {time}</source>
            <translation>Asistente · {time}</translation>
        </message>
        <message>
            <source>■ Stopped</source>
            <translation>■ Detenido</translation>
        </message>
        <message>
            <source>⚠ Interrupted — the app closed while this answer was streaming</source>
            <translation>⚠ Interrumpido: la app se cerró mientras llegaba esta respuesta</translation>
        </message>
        <message>
            <source>Show more</source>
            <translation>Mostrar más</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Mostrar menos</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Pensando…</translation>
        </message>
        <message>
            <source>Thought for {seconds} s</source>
            <translation>Pensó durante {seconds} s</translation>
        </message>
        <message>
            <source>Copy message as Markdown</source>
            <translation>Copiar mensaje como Markdown</translation>
        </message>
        <message>
            <source>Copy message as plain text</source>
            <translation>Copiar mensaje como texto sin formato</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>Copiar como Markdown</translation>
        </message>
        <message>
            <source>Copy as plain text</source>
            <translation>Copiar como texto sin formato</translation>
        </message>
        <message>
            <source>Copy code block {number}: {start}</source>
            <translation>Copiar bloque de código {number}: {start}</translation>
        </message>
    </context>
    <context>
        <name>MicButton</name>
        <message>
            <source>Recording… click to stop</source>
            <translation>Grabando… haga clic para detener</translation>
        </message>
        <message>
            <source>Stop and write down what you said</source>
            <translation>Detener y escribir lo que dijo</translation>
        </message>
        <message>
            <source>Stop dictation</source>
            <translation>Detener el dictado</translation>
        </message>
        <message>
            <source>Writing it down…</source>
            <translation>Escribiéndolo…</translation>
        </message>
        <message>
            <source>Your recording is being written down</source>
            <translation>Su grabación se está transcribiendo</translation>
        </message>
        <message>
            <source>Transcribing</source>
            <translation>Transcribiendo</translation>
        </message>
        <message>
            <source>Dictate (failed)</source>
            <translation>Dictar (falló)</translation>
        </message>
        <message>
            <source>Dictate: record what you say, then edit the text before sending</source>
            <translation>Dictar: graba lo que dice y edite el texto antes de enviarlo</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>Dictar</translation>
        </message>
    </context>
    <context>
        <name>ModelPicker</name>
        <message>
            <source>Search models, or type a model id</source>
            <translation>Busca modelos o escribe un id de modelo</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>Buscar modelos</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modelos</translation>
        </message>
        <message>
            <source>No model matches. Press Enter to use the text as a model id.</source>
            <translation>Ningún modelo coincide. Pulsa Intro para usar el texto como id de modelo.</translation>
        </message>
        <message>
            <source>A model id has no spaces: nothing was changed.</source>
            <translation>Un id de modelo no tiene espacios: no se ha cambiado nada.</translation>
        </message>
    </context>
    <context>
        <name>ModelWords</name>
        <message>
            <source>Favourites</source>
            <translation>Favoritos</translation>
        </message>
        <message>
            <source>Recent</source>
            <translation>Recientes</translation>
        </message>
        <message>
            <source>makes images</source>
            <translation>crea imágenes</translation>
        </message>
        <message>
            <source>tools</source>
            <translation>herramientas</translation>
        </message>
        <message>
            <source>images</source>
            <translation>imágenes</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>razonamiento</translation>
        </message>
    </context>
    <context>
        <name>PageCount</name>
        <message numerus="yes">
            <source>%n slide(s)</source>
            <translation>
                <numerusform>%n diapositiva</numerusform>
                <numerusform>%n diapositivas</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sheet(s)</source>
            <translation>
                <numerusform>%n hoja</numerusform>
                <numerusform>%n hojas</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n chapter(s)</source>
            <translation>
                <numerusform>%n capítulo</numerusform>
                <numerusform>%n capítulos</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s)</source>
            <translation>
                <numerusform>%n página</numerusform>
                <numerusform>%n páginas</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PasteDialog</name>
        <message>
            <source>Paste MCP servers</source>
            <translation>Pegar servidores MCP</translation>
        </message>
        <message>
            <source>Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</source>
            <translation>Pega una configuración al estilo de Claude Desktop, p. ej., {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</translation>
        </message>
        <message>
            <source>MCP configuration JSON</source>
            <translation>JSON de configuración MCP</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importar</translation>
        </message>
    </context>
    <context>
        <name>PricesDialog</name>
        <message>
            <source>Model id</source>
            <translation>Id del modelo</translation>
        </message>
        <message>
            <source>Input $/M</source>
            <translation>Entrada $/M</translation>
        </message>
        <message>
            <source>Output $/M</source>
            <translation>Salida $/M</translation>
        </message>
        <message>
            <source>Cached input $/M</source>
            <translation>Entrada en caché $/M</translation>
        </message>
        <message>
            <source>Model prices</source>
            <translation>Precios de los modelos</translation>
        </message>
        <message>
            <source>Costs use the provider's own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
            <translation>Los costes usan la cifra del proveedor cuando la indica; si no, estos precios y, si no, una tabla integrada de modelos comunes. Los precios son dólares estadounidenses por millón de tokens; el id del modelo debe coincidir exactamente.</translation>
        </message>
        <message>
            <source>Add row</source>
            <translation>Añadir fila</translation>
        </message>
        <message>
            <source>Remove row</source>
            <translation>Quitar fila</translation>
        </message>
        <message>
            <source>Row {row}: enter a model id.</source>
            <translation>Fila {row}: escribe un id de modelo.</translation>
        </message>
        <message>
            <source>Row {row}: prices must be numbers.</source>
            <translation>Fila {row}: los precios deben ser números.</translation>
        </message>
        <message>
            <source>Row {row}: enter input and output prices.</source>
            <translation>Fila {row}: escribe los precios de entrada y de salida.</translation>
        </message>
        <message>
            <source>Row {row}: prices cannot be negative.</source>
            <translation>Fila {row}: los precios no pueden ser negativos.</translation>
        </message>
    </context>
    <context>
        <name>ProjectActions</name>
        <message>
            <source>New chat in the project “{name}”: its instructions and files are part of every answer.</source>
            <translation>Nuevo chat en el proyecto «{name}»: sus instrucciones y archivos forman parte de cada respuesta.</translation>
        </message>
        <message>
            <source>New chat in the project {name}</source>
            <translation>Nuevo chat en el proyecto {name}</translation>
        </message>
        <message>
            <source>Delete the project “{name}”?</source>
            <translation>¿Eliminar el proyecto «{name}»?</translation>
        </message>
        <message numerus="yes">
            <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
            <translation>
                <numerusform>Su %n chat se conserva y sale del proyecto. Se eliminan sus instrucciones y el texto de sus archivos.</numerusform>
                <numerusform>Sus %n chats se conservan y salen del proyecto. Se eliminan sus instrucciones y el texto de sus archivos.</numerusform>
            </translation>
        </message>
        <message>
            <source>Delete project</source>
            <translation>Eliminar proyecto</translation>
        </message>
        <message numerus="yes">
            <source>Deleted the project {name}; its %n chats are in the list.</source>
            <translation>
                <numerusform>Se eliminó el proyecto {name}; su %n chat está en la lista.</numerusform>
                <numerusform>Se eliminó el proyecto {name}; sus %n chats están en la lista.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ProjectPage</name>
        <message>
            <source>e.g. Thesis, Garden, Client X</source>
            <translation>p. ej. Tesis, Jardín, Cliente X</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Nombre</translation>
        </message>
        <message>
            <source>What every chat in this project should know or do. Added after the assistant's prompt.</source>
            <translation>Lo que cada chat de este proyecto debe saber o hacer. Se añade tras el prompt del asistente.</translation>
        </message>
        <message>
            <source>Instructions</source>
            <translation>Instrucciones</translation>
        </message>
        <message>
            <source>The provider's default</source>
            <translation>El predeterminado del proveedor</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Modelo predeterminado</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Ninguna</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Elegir…</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>Carpeta de trabajo</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>Bases de conocimiento</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>Archivos</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>Solo estas herramientas</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>Solo estas herramientas (si no, los ajustes de herramientas de la aplicación)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>Herramientas activadas</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Herramientas</translation>
        </message>
        <message>
            <source>Every chat in the project has these: small text files whole, larger ones searched.</source>
            <translation>Todos los chats del proyecto los tienen: los archivos de texto pequeños completos, los grandes se buscan.</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Añadir archivos…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Quitar</translation>
        </message>
        <message>
            <source>New chat in this project</source>
            <translation>Nuevo chat en este proyecto</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Eliminar proyecto…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Guardar</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Cerrar</translation>
        </message>
        <message>
            <source>Project: {name}</source>
            <translation>Proyecto: {name}</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Nuevo proyecto</translation>
        </message>
        <message>
            <source>No knowledge bases yet.</source>
            <translation>Aún no hay bases de conocimiento.</translation>
        </message>
        <message>
            <source>in every chat</source>
            <translation>en cada chat</translation>
        </message>
        <message>
            <source>searched when needed</source>
            <translation>se busca cuando hace falta</translation>
        </message>
        <message>
            <source>No chats yet. Start one, or drag a chat onto the project in the list.</source>
            <translation>Aún no hay chats. Empieza uno o arrastra un chat al proyecto en la lista.</translation>
        </message>
        <message>
            <source>Adding…</source>
            <translation>Añadiendo…</translation>
        </message>
        <message>
            <source>Add files to the project</source>
            <translation>Añadir archivos al proyecto</translation>
        </message>
    </context>
    <context>
        <name>ProjectSection</name>
        <message>
            <source>Projects</source>
            <translation>Proyectos</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>Nuevo proyecto</translation>
        </message>
        <message>
            <source>Drag a chat here to move it into a project</source>
            <translation>Arrastra un chat aquí para moverlo a un proyecto</translation>
        </message>
        <message>
            <source>Group chats with shared instructions and files.</source>
            <translation>Agrupa chats con instrucciones y archivos compartidos.</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n chat</numerusform>
                <numerusform>%n chats</numerusform>
            </translation>
        </message>
        <message>
            <source>Open project</source>
            <translation>Abrir proyecto</translation>
        </message>
        <message>
            <source>New chat in project</source>
            <translation>Nuevo chat en el proyecto</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>Eliminar proyecto…</translation>
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
            <translation>Enviar</translation>
        </message>
        <message>
            <source>Fill in: {0}</source>
            <translation>Rellenar: {0}</translation>
        </message>
    </context>
    <context>
        <name>ProviderDialog</name>
        <message>
            <source>Providers</source>
            <translation>Proveedores</translation>
        </message>
        <message>
            <source>Add to my providers</source>
            <translation>Añadir a mis proveedores</translation>
        </message>
        <message>
            <source>Add detected provider to my providers</source>
            <translation>Añadir el proveedor detectado a mis proveedores</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Guardar</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Cerrar</translation>
        </message>
        <message>
            <source>New provider</source>
            <translation>Nuevo proveedor</translation>
        </message>
        <message>
            <source>Discard your changes to “{name}”?</source>
            <translation>¿Descartar tus cambios en «{name}»?</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>Cambios sin guardar</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Guardado.</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its saved API key is deleted too.</source>
            <translation>¿Quitar «{name}»? También se elimina su clave de API guardada.</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Quitar proveedor</translation>
        </message>
        <message>
            <source>Added to your providers.</source>
            <translation>Añadido a tus proveedores.</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Header line {number} should look like “Name: value”</source>
            <translation>La línea de cabecera {number} debe tener la forma «Nombre: valor»</translation>
        </message>
        <message>
            <source>Provider name</source>
            <translation>Nombre del proveedor</translation>
        </message>
        <message>
            <source>A name you will recognize</source>
            <translation>Un nombre que reconozcas</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>&amp;Nombre</translation>
        </message>
        <message>
            <source>Preset</source>
            <translation>Plantilla</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>URL base</translation>
        </message>
        <message>
            <source>https://example.com/v1</source>
            <translation>https://example.com/v1</translation>
        </message>
        <message>
            <source>Base &amp;URL</source>
            <translation>&amp;URL base</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>Clave de API</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>Mostrar</translation>
        </message>
        <message>
            <source>Show API key</source>
            <translation>Mostrar clave de API</translation>
        </message>
        <message>
            <source>Get a key</source>
            <translation>Obtener una clave</translation>
        </message>
        <message>
            <source>API &amp;key</source>
            <translation>&amp;Clave de API</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>Obtener modelos</translation>
        </message>
        <message>
            <source>Ask the provider which models it offers</source>
            <translation>Preguntar al proveedor qué modelos ofrece</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>&amp;Modelo</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>Cabeceras adicionales</translation>
        </message>
        <message>
            <source>Optional, one per line — Name: value</source>
            <translation>Opcional, una por línea — Nombre: valor</translation>
        </message>
        <message>
            <source>Extra &amp;headers</source>
            <translation>&amp;Cabeceras adicionales</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Probar conexión</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>Estado de la conexión</translation>
        </message>
        <message>
            <source>an environment variable</source>
            <translation>una variable de entorno</translation>
        </message>
        <message>
            <source>Read from {variable} (never stored by Assista)</source>
            <translation>Se lee de {variable} (Assista nunca la guarda)</translation>
        </message>
        <message>
            <source>Not needed for {name} (optional)</source>
            <translation>No es necesaria para {name} (opcional)</translation>
        </message>
        <message>
            <source>Paste your API key</source>
            <translation>Pega tu clave de API</translation>
        </message>
        <message>
            <source>Enter a name.</source>
            <translation>Escribe un nombre.</translation>
        </message>
        <message>
            <source>Enter the base URL (for example https://api.openai.com/v1).</source>
            <translation>Escribe la URL base (por ejemplo, https://api.openai.com/v1).</translation>
        </message>
        <message>
            <source>The base URL must start with http:// or https:// and name a server.</source>
            <translation>La URL base debe empezar por http:// o https:// e indicar un servidor.</translation>
        </message>
        <message>
            <source>Put the key in the API key field, not in the {name} header.</source>
            <translation>Pon la clave en el campo Clave de API, no en la cabecera {name}.</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>Trabajando…</translation>
        </message>
        <message>
            <source>✗ Internal error: no asyncio event loop is running.</source>
            <translation>✗ Error interno: no hay ningún bucle de eventos asyncio en marcha.</translation>
        </message>
        <message>
            <source>Testing connection…</source>
            <translation>Probando la conexión…</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>Obteniendo modelos…</translation>
        </message>
        <message>
            <source>Unexpected error: {error}</source>
            <translation>Error inesperado: {error}</translation>
        </message>
        <message numerus="yes">
            <source>✓ Connected — %n models</source>
            <translation>
                <numerusform>✓ Conectado: %n modelo</numerusform>
                <numerusform>✓ Conectado: %n modelos</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>✓ %n models found</source>
            <translation>
                <numerusform>✓ %n modelo encontrado</numerusform>
                <numerusform>✓ %n modelos encontrados</numerusform>
            </translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>Ocultar</translation>
        </message>
        <message>
            <source>Hide API key</source>
            <translation>Ocultar clave de API</translation>
        </message>
    </context>
    <context>
        <name>ProviderList</name>
        <message>
            <source>Providers</source>
            <translation>Proveedores</translation>
        </message>
        <message>
            <source>Add provider</source>
            <translation>Añadir proveedor</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Quitar</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>Quitar proveedor</translation>
        </message>
        <message>
            <source>No base URL yet</source>
            <translation>Aún sin URL base</translation>
        </message>
    </context>
    <context>
        <name>ProviderOptionsBox</name>
        <message>
            <source>Tools</source>
            <translation>Herramientas</translation>
        </message>
        <message>
            <source>Tools capability</source>
            <translation>Capacidad: herramientas</translation>
        </message>
        <message>
            <source>Images</source>
            <translation>Imágenes</translation>
        </message>
        <message>
            <source>Images capability</source>
            <translation>Capacidad: imágenes</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Razonamiento</translation>
        </message>
        <message>
            <source>Reasoning capability</source>
            <translation>Capacidad: razonamiento</translation>
        </message>
        <message>
            <source>minimal</source>
            <translation>mínimo</translation>
        </message>
        <message>
            <source>low</source>
            <translation>bajo</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>medio</translation>
        </message>
        <message>
            <source>high</source>
            <translation>alto</translation>
        </message>
        <message>
            <source>Model behaviour</source>
            <translation>Comportamiento del modelo</translation>
        </message>
        <message>
            <source>Ask the model to think before answering</source>
            <translation>Pedir al modelo que piense antes de responder</translation>
        </message>
        <message>
            <source>Extended thinking</source>
            <translation>Razonamiento extendido</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> tokens</translation>
        </message>
        <message>
            <source>Thinking budget</source>
            <translation>Presupuesto de razonamiento</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>Esfuerzo de razonamiento</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Razonamiento</translation>
        </message>
        <message>
            <source>Chain responses on the server (previous_response_id)</source>
            <translation>Encadenar respuestas en el servidor (previous_response_id)</translation>
        </message>
        <message>
            <source>Stateless replay (store: false)</source>
            <translation>Reenvío sin estado (store: false)</translation>
        </message>
        <message>
            <source>Responses API mode</source>
            <translation>Modo de la API Responses</translation>
        </message>
        <message>
            <source>Conversation state</source>
            <translation>Estado de la conversación</translation>
        </message>
        <message>
            <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
            <translation>Marcada: el modelo puede · Sin marcar: no puede · Parcial: se decide por el nombre del modelo</translation>
        </message>
        <message>
            <source>Capabilities</source>
            <translation>Capacidades</translation>
        </message>
    </context>
    <context>
        <name>ProviderText</name>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>Personalizado (compatible con OpenAI)</translation>
        </message>
        <message>
            <source>{name} — not saved</source>
            <translation>{name} — sin guardar</translation>
        </message>
        <message>
            <source>{name} — from environment ({variable})</source>
            <translation>{name} — del entorno ({variable})</translation>
        </message>
        <message>
            <source>no key</source>
            <translation>sin clave</translation>
        </message>
        <message>
            <source>{name} — detected</source>
            <translation>{name} — detectado</translation>
        </message>
        <message>
            <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
            <translation>Del entorno ({variable}). Aquí es de solo lectura: su clave se queda en el entorno y nunca se copia en Assista.</translation>
        </message>
        <message>
            <source>{name} is running on this computer. Add it to edit it.</source>
            <translation>{name} se está ejecutando en este equipo. Añádelo para editarlo.</translation>
        </message>
        <message>
            <source>The key is read from {variable} each time Assista starts.</source>
            <translation>La clave se lee de {variable} cada vez que se inicia Assista.</translation>
        </message>
        <message>
            <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
            <translation>No se encontró llavero del sistema: las claves se guardan en un archivo que solo tú puedes leer ({file})</translation>
        </message>
        <message>
            <source>Keys are stored in the system keyring ({keyring})</source>
            <translation>Las claves se guardan en el llavero del sistema ({keyring})</translation>
        </message>
    </context>
    <context>
        <name>QuickAsk</name>
        <message>
            <source>&amp;Quick ask…</source>
            <extracomment>an answer in the quick window finished: chat title, answer, failed, the quick window started alone (``assista quick``), put away, and the main window is hidden too</extracomment>
            <translation>&amp;Pregunta rápida…</translation>
        </message>
    </context>
    <context>
        <name>QuickAskWindow</name>
        <message>
            <source>Quick ask</source>
            <translation>Pregunta rápida</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>Pregunta</translation>
        </message>
        <message>
            <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
            <translation>Intro envía, Mayús+Intro añade una línea, Esc cierra la ventana</translation>
        </message>
        <message>
            <source>Ask anything… (Enter sends)</source>
            <translation>Pregunta lo que quieras… (Intro envía)</translation>
        </message>
        <message>
            <source>Insert &amp;selection</source>
            <translation>Insertar &amp;selección</translation>
        </message>
        <message>
            <source>Insert the text selected in another application (or the clipboard)</source>
            <translation>Insertar el texto seleccionado en otra aplicación (o el portapapeles)</translation>
        </message>
        <message>
            <source>&amp;Open in the main window</source>
            <translation>&amp;Abrir en la ventana principal</translation>
        </message>
        <message>
            <source>Continue this chat in the main window</source>
            <translation>Continuar este chat en la ventana principal</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Enviar</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>Estado</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Respuesta</translation>
        </message>
        <message>
            <source>Add a provider in the main window first (Settings → Providers).</source>
            <translation>Primero añade un proveedor en la ventana principal (Configuración → Proveedores).</translation>
        </message>
        <message>
            <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
            <translation>{tool} espera tu aprobación: abre este chat en la ventana principal para responder.</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Detener</translation>
        </message>
        <message>
            <source>Nothing is selected and the clipboard is empty.</source>
            <translation>No hay nada seleccionado y el portapapeles está vacío.</translation>
        </message>
    </context>
    <context>
        <name>QuitGuard</name>
        <message>
            <source>Quit while answering?</source>
            <translation>¿Salir mientras responde?</translation>
        </message>
        <message numerus="yes">
            <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
            <translation>
                <numerusform>%n chat todavía está respondiendo. ¿Salir de todos modos? Lo que ha escrito se conserva, marcado como detenido.</numerusform>
                <numerusform>%n chats todavía están respondiendo. ¿Salir de todos modos? Lo que han escrito se conserva, marcado como detenido.</numerusform>
            </translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>Salir</translation>
        </message>
    </context>
    <context>
        <name>ReadingBar</name>
        <message>
            <source>Stop</source>
            <translation>Detener</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>Dejar de leer en voz alta</translation>
        </message>
        <message>
            <source>Preparing to read aloud…</source>
            <translation>Preparando la lectura…</translation>
        </message>
        <message>
            <source>Reading aloud</source>
            <translation>Leyendo en voz alta</translation>
        </message>
        <message>
            <source>Reading aloud (paused)</source>
            <translation>Leyendo en voz alta (en pausa)</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Reanudar</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pausar</translation>
        </message>
        <message>
            <source>Go on reading</source>
            <translation>Seguir leyendo</translation>
        </message>
        <message>
            <source>Pause reading</source>
            <translation>Pausar la lectura</translation>
        </message>
    </context>
    <context>
        <name>ReplayView</name>
        <message>
            <source>First token %1 · total %2 · %3 tokens · %4 tok/s</source>
            <translation>Primer token %1 · total %2 · %3 tokens · %4 tok/s</translation>
        </message>
        <message>
            <source>Provider to send to</source>
            <translation>Proveedor al que enviar</translation>
        </message>
        <message>
            <source>Model to send to</source>
            <translation>Modelo al que enviar</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>Reproducir</translation>
        </message>
        <message>
            <source>Send the same request again (nothing is added to the chat)</source>
            <translation>Enviar de nuevo la misma solicitud (no se añade nada al chat)</translation>
        </message>
        <message>
            <source>Not replayed yet</source>
            <translation>Aún no se ha reenviado</translation>
        </message>
        <message>
            <source>Send to:</source>
            <translation>Enviar a:</translation>
        </message>
        <message>
            <source>No provider is configured.</source>
            <translation>No hay ningún proveedor configurado.</translation>
        </message>
        <message>
            <source>Sending the request again…</source>
            <translation>Enviando de nuevo la solicitud…</translation>
        </message>
        <message>
            <source>Replay failed.</source>
            <translation>El reenvío falló.</translation>
        </message>
        <message>
            <source>Replayed.</source>
            <translation>Reenviado.</translation>
        </message>
    </context>
    <context>
        <name>RequestInspector</name>
        <message>
            <source>There is no answer in this chat to inspect yet.</source>
            <translation>Aún no hay ninguna respuesta en este chat que inspeccionar.</translation>
        </message>
        <message>
            <source>The recorded requests cannot be read: %1</source>
            <translation>No se pueden leer las solicitudes registradas: %1</translation>
        </message>
        <message>
            <source>No request was recorded for this answer. Recording may be off in Settings, or the record is older than the retention period.</source>
            <translation>No se registró ninguna solicitud para esta respuesta. Puede que el registro esté desactivado en Configuración o que sea anterior al periodo de conservación.</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspector de solicitudes</translation>
        </message>
    </context>
    <context>
        <name>ResearchPanel</name>
        <message>
            <source>Research progress</source>
            <translation>Progreso de la investigación</translation>
        </message>
        <message>
            <source>Research status</source>
            <translation>Estado de la investigación</translation>
        </message>
        <message>
            <source>Hide the research progress</source>
            <translation>Ocultar el progreso de la investigación</translation>
        </message>
        <message>
            <source>Research time, tokens and cost</source>
            <translation>Tiempo, tokens y coste de la investigación</translation>
        </message>
        <message>
            <source>Plan:</source>
            <translation>Plan:</translation>
        </message>
        <message numerus="yes">
            <source>Searches (%n):</source>
            <translation>
                <numerusform>Búsquedas (%n):</numerusform>
                <numerusform>Búsquedas (%n):</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Sources read (%n):</source>
            <translation>
                <numerusform>Fuentes leídas (%n):</numerusform>
                <numerusform>Fuentes leídas (%n):</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s) could not be read.</source>
            <translation>
                <numerusform>No se pudo leer %n página.</numerusform>
                <numerusform>No se pudieron leer %n páginas.</numerusform>
            </translation>
        </message>
        <message>
            <source>Research: making a plan…</source>
            <translation>Investigación: haciendo un plan…</translation>
        </message>
        <message>
            <source>Research: searching…</source>
            <translation>Investigación: buscando…</translation>
        </message>
        <message>
            <source>Research: reading pages…</source>
            <translation>Investigación: leyendo páginas…</translation>
        </message>
        <message>
            <source>Research: writing the report…</source>
            <translation>Investigación: escribiendo el informe…</translation>
        </message>
        <message>
            <source>Research finished</source>
            <translation>Investigación terminada</translation>
        </message>
        <message>
            <source>(round {round} of {rounds})</source>
            <translation>(ronda {round} de {rounds})</translation>
        </message>
        <message>
            <source>{elapsed} of {limit}</source>
            <translation>{elapsed} de {limit}</translation>
        </message>
        <message numerus="yes">
            <source>%n token(s)</source>
            <translation>
                <numerusform>%n token</numerusform>
                <numerusform>%n tokens</numerusform>
            </translation>
        </message>
        <message>
            <source>cost unknown</source>
            <translation>coste desconocido</translation>
        </message>
        <message>
            <source>{cost} of {ceiling}</source>
            <translation>{cost} de {ceiling}</translation>
        </message>
        <message numerus="yes">
            <source>Stopped at the limit of %n search round(s).</source>
            <translation>
                <numerusform>Se detuvo en el límite de %n ronda de búsqueda.</numerusform>
                <numerusform>Se detuvo en el límite de %n rondas de búsqueda.</numerusform>
            </translation>
        </message>
        <message>
            <source>Stopped at the time limit ({limit}).</source>
            <translation>Se detuvo en el límite de tiempo ({limit}).</translation>
        </message>
        <message>
            <source>Stopped at the cost ceiling ({ceiling}); the report is made of what was found.</source>
            <translation>Se detuvo en el tope de coste ({ceiling}); el informe se compone de lo encontrado.</translation>
        </message>
        <message>
            <source>Stopped; the report holds what was found so far.</source>
            <translation>Detenida; el informe recoge lo encontrado hasta ahora.</translation>
        </message>
        <message>
            <source>The research failed; what was found is kept in the report.</source>
            <translation>La investigación falló; lo encontrado se conserva en el informe.</translation>
        </message>
    </context>
    <context>
        <name>ResponsivePanels</name>
        <message>
            <source>Show the chat list (Ctrl+Shift+L)</source>
            <translation>Mostrar la lista de chats (Ctrl+Mayús+L)</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Lista de chats</translation>
        </message>
    </context>
    <context>
        <name>ResultColumn</name>
        <message>
            <source>Error: %1</source>
            <translation>Error: %1</translation>
        </message>
        <message>
            <source>Answer of %1</source>
            <translation>Respuesta de %1</translation>
        </message>
    </context>
    <context>
        <name>RetrievalText</name>
        <message>
            <source>Query</source>
            <translation>Consulta</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>No se encontró nada.</translation>
        </message>
    </context>
    <context>
        <name>SaveBanner</name>
        <message>
            <source>Retry</source>
            <translation>Reintentar</translation>
        </message>
        <message>
            <source>Try to store the answer again</source>
            <translation>Intentar guardar la respuesta de nuevo</translation>
        </message>
        <message>
            <source>Retry saving the answer</source>
            <translation>Reintentar guardar la respuesta</translation>
        </message>
        <message>
            <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
            <translation>No se pudo guardar la respuesta: {error}. Se conserva aquí hasta que se guarde.</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Guardando…</translation>
        </message>
        <message>
            <source>Still not saved: {error}. The answer is kept here; try again.</source>
            <translation>Sigue sin guardarse: {error}. La respuesta se conserva aquí; inténtalo de nuevo.</translation>
        </message>
    </context>
    <context>
        <name>ScopeRow</name>
        <message>
            <source>Always allow for paths matching</source>
            <translation>Permitir siempre para las rutas que coincidan con</translation>
        </message>
        <message>
            <source>Always allow for the command</source>
            <translation>Permitir siempre para el comando</translation>
        </message>
        <message>
            <source>Always allow needs a scope: type one, or allow once.</source>
            <translation>«Permitir siempre» necesita un ámbito: escriba uno, o permita una vez.</translation>
        </message>
        <message>
            <source>The pattern must stay inside the workspace (a relative path).</source>
            <translation>El patrón debe quedar dentro del espacio de trabajo (una ruta relativa).</translation>
        </message>
        <message>
            <source>Files in a .git folder are never allowed without asking.</source>
            <translation>Los archivos de una carpeta .git nunca se permiten sin preguntar.</translation>
        </message>
        <message>
            <source>A command with shell syntax ($ ` ; | &amp; &gt; &lt; \, a line break, or * ? ~ ( ) outside quotes) cannot be always allowed.</source>
            <translation>Un comando con sintaxis de shell ($ ` ; | &amp; &gt; &lt; \, un salto de línea, o * ? ~ ( ) fuera de comillas) no se puede permitir siempre.</translation>
        </message>
        <message>
            <source>A host is a name such as api.example.com or *.example.com.</source>
            <translation>Un host es un nombre como api.example.com o *.example.com.</translation>
        </message>
        <message>
            <source>This call cannot be always allowed.</source>
            <translation>Esta llamada no se puede permitir siempre.</translation>
        </message>
        <message>
            <source>Writes to paths matching {scope} (never inside .git) run without asking, in every chat.</source>
            <translation>Las escrituras en rutas que coincidan con {scope} (nunca dentro de .git) se ejecutan sin preguntar, en todos los chats.</translation>
        </message>
        <message>
            <source>Fetches from {scope} run without asking, in every chat.</source>
            <translation>Las descargas de {scope} se ejecutan sin preguntar, en todos los chats.</translation>
        </message>
        <message>
            <source>“{scope}” runs without asking, in every chat, with its read-only options and arguments inside the workspace; anything else asks again.</source>
            <translation>«{scope}» se ejecuta sin preguntar, en todos los chats, con sus opciones de solo lectura y argumentos dentro del espacio de trabajo; todo lo demás vuelve a preguntar.</translation>
        </message>
        <message>
            <source>Exactly the command “{scope}” runs without asking, in every chat; any other asks again.</source>
            <translation>Exactamente el comando «{scope}» se ejecuta sin preguntar, en todos los chats; cualquier otro vuelve a preguntar.</translation>
        </message>
        <message>
            <source>What “Always allow” grants: calls inside it will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
            <translation>Lo que concede «Permitir siempre»: las llamadas dentro de él se ejecutarán sin preguntar, en todos los chats; las demás siguen preguntando. Revóquelo en Configuración → Herramientas.</translation>
        </message>
        <message>
            <source>Always allow for the host</source>
            <translation>Permitir siempre para el host</translation>
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
            <translation>Buscar en los chats</translation>
        </message>
        <message>
            <source>Search every chat — words, "exact phrases", any language</source>
            <translation>Busca en todos los chats: palabras, "frases exactas", cualquier idioma</translation>
        </message>
        <message>
            <source>Search results</source>
            <translation>Resultados de la búsqueda</translation>
        </message>
        <message>
            <source>No matches.</source>
            <translation>Sin coincidencias.</translation>
        </message>
        <message numerus="yes">
            <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n coincidencia (se muestran las más recientes) · Intro abre · ↑↓ mueve · Esc cierra</numerusform>
                <numerusform>%n coincidencias (se muestran las más recientes) · Intro abre · ↑↓ mueve · Esc cierra</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n coincidencia · Intro abre · ↑↓ mueve · Esc cierra</numerusform>
                <numerusform>%n coincidencias · Intro abre · ↑↓ mueve · Esc cierra</numerusform>
            </translation>
        </message>
        <message>
            <source>Type to search every chat, every branch, tool calls and titles.</source>
            <translation>Escribe para buscar en todos los chats, todas las ramas, llamadas a herramientas y títulos.</translation>
        </message>
    </context>
    <context>
        <name>SectionDelegate</name>
        <message numerus="yes">
            <source>%n messages</source>
            <translation>
                <numerusform>%n mensaje</numerusform>
                <numerusform>%n mensajes</numerusform>
            </translation>
        </message>
        <message>
            <source>Now: {state}</source>
            <translation>Ahora: {state}</translation>
        </message>
    </context>
    <context>
        <name>Segment</name>
        <message>
            <source>Copy</source>
            <translation>Copiar</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>Guardar…</translation>
        </message>
        <message>
            <source>Picture</source>
            <translation>Imagen</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Código</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vista previa</translation>
        </message>
        <message>
            <source>Open in your browser: this runs the model's code, with every network request blocked</source>
            <translation>Abrir en el navegador: ejecuta el código del modelo, con todas las solicitudes de red bloqueadas</translation>
        </message>
        <message>
            <source>Show the code, or the drawing</source>
            <translation>Mostrar el código o el dibujo</translation>
        </message>
        <message>
            <source>Save this as a file</source>
            <translation>Guardar esto como archivo</translation>
        </message>
        <message>
            <source>The preview runs the model's code in your web browser. Every network request from it is blocked, so it cannot send anything anywhere or load anything. Open it?</source>
            <translation>La vista previa ejecuta el código del modelo en su navegador. Todas sus solicitudes de red se bloquean, así que no puede enviar nada a ninguna parte ni cargar nada. ¿Abrirla?</translation>
        </message>
        <message>
            <source>This build has no mermaid.js, so diagrams cannot be previewed.</source>
            <translation>Esta versión no incluye mermaid.js, así que no se pueden previsualizar diagramas.</translation>
        </message>
        <message>
            <source>Could not write the preview: {error}</source>
            <translation>No se pudo escribir la vista previa: {error}</translation>
        </message>
        <message>
            <source>Save as</source>
            <translation>Guardar como</translation>
        </message>
        <message>
            <source>{kind} files (*{suffix});;All files (*)</source>
            <translation>Archivos {kind} (*{suffix});;Todos los archivos (*)</translation>
        </message>
        <message>
            <source>Could not save {path}: {error}</source>
            <translation>No se pudo guardar {path}: {error}</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>Copiado</translation>
        </message>
    </context>
    <context>
        <name>ServerQuestionCard</name>
        <message>
            <source>MCP server {0} asks</source>
            <translation>El servidor MCP {0} pregunta</translation>
        </message>
        <message>
            <source>MCP server {0} wants the model to answer</source>
            <translation>El servidor MCP {0} quiere que responda el modelo</translation>
        </message>
        <message>
            <source>In “{0}”</source>
            <translation>En «{0}»</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Abrir</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Hecho</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>Enviar</translation>
        </message>
        <message>
            <source>Decline</source>
            <translation>Rechazar</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Cancelar</translation>
        </message>
        <message>
            <source>The messages the server sends</source>
            <translation>Los mensajes que envía el servidor</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>Permitir</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Denegar</translation>
        </message>
        <message>
            <source>At most {0} tokens.</source>
            <translation>Como máximo {0} tokens.</translation>
        </message>
        <message>
            <source>(an image, {0})</source>
            <translation>(una imagen, {0})</translation>
        </message>
    </context>
    <context>
        <name>SessionItems</name>
        <message>
            <source>waiting for the provider</source>
            <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
            <translation>esperando al proveedor</translation>
        </message>
        <message>
            <source>answering</source>
            <translation>respondiendo</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>esperando tu aprobación</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>falló</translation>
        </message>
        <message>
            <source>new answer</source>
            <translation>respuesta nueva</translation>
        </message>
        <message>
            <source>Today</source>
            <extracomment>The drag of a chat (onto a project): its session id, as UTF-8.</extracomment>
            <translation>Hoy</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>Ayer</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>Últimos 7 días</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>Más antiguos</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>Fijados</translation>
        </message>
        <message>
            <source>Last changed {time}</source>
            <translation>Último cambio {time}</translation>
        </message>
        <message>
            <source>Deleted {time}</source>
            <translation>Eliminado {time}</translation>
        </message>
    </context>
    <context>
        <name>SessionList</name>
        <message>
            <source>+  New chat</source>
            <extracomment>Chats added each time the list is scrolled to its end: with thousands of chats, listing them all took hundreds of milliseconds on every change (each sent message; tests/bench/bench_shipped_startup.py). Chats listed at first: more than a tall window's list shows. The window lists them when it is built and again when a question typed while it loaded is sent, both before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.</extracomment>
            <translation>+  Nuevo chat</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>Empezar una conversación nueva (Ctrl+N)</translation>
        </message>
        <message>
            <source>Search chats…   Ctrl+K</source>
            <translation>Buscar en los chats…   Ctrl+K</translation>
        </message>
        <message>
            <source>Find a chat by a word in it (Ctrl+K)</source>
            <translation>Encuentra un chat por una palabra que contenga (Ctrl+K)</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>Vaciar la papelera</translation>
        </message>
        <message>
            <source>Show chats</source>
            <translation>Mostrar chats</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>Archivados</translation>
        </message>
        <message>
            <source>Show archived chats</source>
            <translation>Mostrar chats archivados</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>Papelera</translation>
        </message>
        <message>
            <source>Show the trash</source>
            <translation>Mostrar la papelera</translation>
        </message>
        <message numerus="yes">
            <source>Chats here are erased after %n days.</source>
            <translation>
                <numerusform>Los chats de aquí se borran tras %n día.</numerusform>
                <numerusform>Los chats de aquí se borran tras %n días.</numerusform>
            </translation>
        </message>
        <message>
            <source>Chats here are erased when the app next starts.</source>
            <translation>Los chats de aquí se borran la próxima vez que se inicie la app.</translation>
        </message>
        <message>
            <source>Archived chats</source>
            <translation>Chats archivados</translation>
        </message>
        <message>
            <source>No chats yet.</source>
            <translation>Aún no hay chats.</translation>
        </message>
        <message>
            <source>Archived chats appear here.</source>
            <translation>Los chats archivados aparecen aquí.</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>La papelera está vacía.</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>Restaurar</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>Eliminar para siempre…</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Abrir</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Cambiar nombre</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>Dejar de fijar</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>Fijar</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplicar</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>Desarchivar</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>Archivar</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Eliminar</translation>
        </message>
        <message>
            <source>Move to project</source>
            <translation>Mover al proyecto</translation>
        </message>
        <message>
            <source>Remove from project</source>
            <translation>Quitar del proyecto</translation>
        </message>
        <message>
            <source>the chat</source>
            <translation>el chat</translation>
        </message>
        <message>
            <source>this chat</source>
            <translation>este chat</translation>
        </message>
        <message>
            <source>Delete “{title}” forever? This cannot be undone.</source>
            <translation>¿Eliminar «{title}» para siempre? No se puede deshacer.</translation>
        </message>
        <message>
            <source>Delete every chat in the trash forever? This cannot be undone.</source>
            <translation>¿Eliminar para siempre todos los chats de la papelera? No se puede deshacer.</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>Eliminar para siempre</translation>
        </message>
    </context>
    <context>
        <name>SessionPromptDialog</name>
        <message>
            <source>System prompt of this chat</source>
            <translation>Prompt del sistema de este chat</translation>
        </message>
        <message>
            <source>the assistant “{name}”</source>
            <translation>el asistente «{name}»</translation>
        </message>
        <message>
            <source>the default system prompt (Settings → Preferences)</source>
            <translation>el prompt del sistema predeterminado (Configuración → Preferencias)</translation>
        </message>
        <message>
            <source>The new chat</source>
            <translation>El chat nuevo</translation>
        </message>
        <message>
            <source>Use this chat's own system prompt</source>
            <translation>Usar un prompt del sistema propio en este chat</translation>
        </message>
        <message>
            <source>Otherwise the chat uses {origin}.</source>
            <translation>Si no, el chat usa {origin}.</translation>
        </message>
        <message>
            <source>Without it, this chat uses {origin}.</source>
            <translation>Sin él, este chat usa {origin}.</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Prompt del sistema</translation>
        </message>
        <message>
            <source>Full system prompt</source>
            <translation>Prompt del sistema completo</translation>
        </message>
        <message>
            <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
            <translation>Lo que se envía al modelo (con tus instrucciones personalizadas, la carpeta de trabajo y la fecha):</translation>
        </message>
        <message>
            <source>(no system prompt)</source>
            <translation>(sin prompt del sistema)</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Follow the system</source>
            <translation>Seguir al sistema</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Claro</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Oscuro</translation>
        </message>
        <message>
            <source>High contrast</source>
            <translation>Alto contraste</translation>
        </message>
        <message>
            <source>Leave out the oldest turns</source>
            <translation>Omitir los turnos más antiguos</translation>
        </message>
        <message>
            <source>Replace the oldest turns with a summary</source>
            <translation>Sustituir los turnos más antiguos por un resumen</translation>
        </message>
        <message>
            <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
            <translation>p. ej., http://proxy.example.com:8080 o socks5://127.0.0.1:1080</translation>
        </message>
        <message>
            <source>The proxy URL cannot contain spaces ({example}).</source>
            <translation>La URL del proxy no puede contener espacios ({example}).</translation>
        </message>
        <message>
            <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
            <translation>El proxy debe empezar por http://, https:// o socks5:// ({example}).</translation>
        </message>
        <message>
            <source>The proxy URL needs a host name ({example}).</source>
            <translation>La URL del proxy necesita un nombre de host ({example}).</translation>
        </message>
        <message>
            <source>The proxy port must be a number from 1 to 65535.</source>
            <translation>El puerto del proxy debe ser un número del 1 al 65535.</translation>
        </message>
        <message>
            <source>The proxy URL is only scheme://host:port ({example}).</source>
            <translation>La URL del proxy solo es esquema://host:puerto ({example}).</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>Preferencias</translation>
        </message>
        <message>
            <source>Preferences sections</source>
            <translation>Secciones de preferencias</translation>
        </message>
        <message>
            <source>General</source>
            <translation>General</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>Chats</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Memoria</translation>
        </message>
        <message>
            <source>Network</source>
            <translation>Red</translation>
        </message>
        <message>
            <source>Desktop</source>
            <translation>Escritorio</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Datos</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>Búsqueda web</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Habilidades</translation>
        </message>
        <message>
            <source>Usage</source>
            <translation>Uso</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>Inspector de solicitudes</translation>
        </message>
        <message>
            <source>Settings error</source>
            <translation>Error en la configuración</translation>
        </message>
        <message>
            <source>The assistant new chats start with</source>
            <translation>El asistente con el que empiezan los chats nuevos</translation>
        </message>
        <message>
            <source>Added to every chat: who you are, how you like answers…</source>
            <translation>Se añade a cada chat: quién eres, cómo prefieres las respuestas…</translation>
        </message>
        <message>
            <source>Custom instructions</source>
            <translation>Instrucciones personalizadas</translation>
        </message>
        <message>
            <source>Default system prompt</source>
            <translation>Prompt del sistema predeterminado</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Tema</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Idioma</translation>
        </message>
        <message>
            <source>Base font size</source>
            <translation>Tamaño de letra base</translation>
        </message>
        <message>
            <source> pt</source>
            <translation> pt</translation>
        </message>
        <message>
            <source>Default</source>
            <translation>Predeterminado</translation>
        </message>
        <message>
            <source>New chats use</source>
            <translation>Los chats nuevos usan</translation>
        </message>
        <message>
            <source>A chat's own prompt (Chat → Edit system prompt…) or its assistant's replaces the default; custom instructions are always added.</source>
            <translation>El prompt propio de un chat (Chat → Editar el prompt del sistema…) o el de su asistente sustituye al predeterminado; las instrucciones personalizadas se añaden siempre.</translation>
        </message>
        <message>
            <source>What happens when a chat no longer fits the model's context window (you are told when it does)</source>
            <translation>Qué pasa cuando un chat ya no cabe en la ventana de contexto del modelo (se te avisa cuando ocurre)</translation>
        </message>
        <message>
            <source> days</source>
            <translation> días</translation>
        </message>
        <message>
            <source>Erase at the next start</source>
            <translation>Borrar en el próximo inicio</translation>
        </message>
        <message>
            <source>Let the model title new chats</source>
            <translation>Dejar que el modelo ponga título a los chats nuevos</translation>
        </message>
        <message>
            <source>After a new chat's first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
            <translation>Tras la primera respuesta de un chat nuevo, su modelo escribe un título corto (una pequeña solicitud). Desactivado: la primera línea de tu primer mensaje queda como título. Un título que pongas tú nunca se sustituye.</translation>
        </message>
        <message>
            <source>When a chat is too long</source>
            <translation>Cuando un chat es demasiado largo</translation>
        </message>
        <message>
            <source>Keep deleted chats in the trash</source>
            <translation>Conservar los chats eliminados en la papelera</translation>
        </message>
        <message>
            <source>Titles</source>
            <translation>Títulos</translation>
        </message>
        <message>
            <source>Titles written by</source>
            <translation>Títulos escritos por</translation>
        </message>
        <message>
            <source>Proxy URL</source>
            <translation>URL del proxy</translation>
        </message>
        <message>
            <source>Empty: the system's settings. http://host:8080, socks5://host:1080</source>
            <translation>Vacío: la configuración del sistema. http://host:8080, socks5://host:1080</translation>
        </message>
        <message>
            <source>No proxy for</source>
            <translation>Sin proxy para</translation>
        </message>
        <message>
            <source>localhost,127.0.0.1,.internal.example</source>
            <translation>localhost,127.0.0.1,.internal.example</translation>
        </message>
        <message>
            <source>Request timeout</source>
            <translation>Tiempo de espera de las solicitudes</translation>
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
            <translation>Respuestas simultáneas por proveedor</translation>
        </message>
        <message>
            <source>More chats than this asking one provider at once wait their turn</source>
            <translation>Si hay más chats preguntando a la vez a un proveedor, esperan su turno</translation>
        </message>
        <message>
            <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
            <translation>El proxy se usa para todas las solicitudes de la app: proveedores, listas de modelos, fetch_url y servidores MCP por HTTP. El usuario y la contraseña pueden ir en la URL (http://usuario:clave@host:puerto).</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>Abrir carpeta</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>Carpeta de datos</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir).</source>
            <translation>Modo portátil (--data-dir).</translation>
        </message>
        <message>
            <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
            <translation>Inicia con --data-dir CARPETA para guardar los datos en otro sitio.</translation>
        </message>
        <message>
            <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
            <translation>Los chats y la configuración están ahí en {database}; los registros en {logs}/. {note} Las claves de API están en el llavero del sistema si lo hay.</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>Sin asistente</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Message box</source>
            <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
            <translation>Cuadro de mensaje</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Enviar</translation>
        </message>
        <message>
            <source>New line</source>
            <translation>Nueva línea</translation>
        </message>
        <message>
            <source>Stop the answer</source>
            <translation>Detener la respuesta</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>Lista de chats</translation>
        </message>
        <message>
            <source>Rename the chat</source>
            <translation>Cambiar el nombre del chat</translation>
        </message>
        <message>
            <source>Move the chat to the trash</source>
            <translation>Mover el chat a la papelera</translation>
        </message>
        <message>
            <source>Open the chat</source>
            <translation>Abrir el chat</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Atajos de teclado</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>Dónde</translation>
        </message>
        <message>
            <source>What</source>
            <translation>Qué</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>Teclas</translation>
        </message>
    </context>
    <context>
        <name>SkillSwitches</name>
        <message>
            <source>Skills</source>
            <translation>Habilidades</translation>
        </message>
        <message>
            <source>No skills (add some in Preferences → Skills)</source>
            <translation>No hay habilidades (añádelas en Preferencias → Habilidades)</translation>
        </message>
    </context>
    <context>
        <name>SkillsPage</name>
        <message>
            <source>{path} does not exist.</source>
            <extracomment>The page's wording of the errors adding or removing a skill can carry.</extracomment>
            <translation>{path} no existe.</translation>
        </message>
        <message>
            <source>There is no SKILL.md in it.</source>
            <translation>No contiene ningún SKILL.md.</translation>
        </message>
        <message>
            <source>The skill is not valid: {reason}</source>
            <translation>La habilidad no es válida: {reason}</translation>
        </message>
        <message>
            <source>The zip is refused: {reason}</source>
            <translation>Se rechaza el zip: {reason}</translation>
        </message>
        <message>
            <source>The skill is larger than 50 MB.</source>
            <translation>La habilidad ocupa más de 50 MB.</translation>
        </message>
        <message>
            <source>A skill named {name} is already added.</source>
            <translation>Ya hay una habilidad llamada {name}.</translation>
        </message>
        <message>
            <source>There is no added skill named {name}.</source>
            <translation>No hay ninguna habilidad añadida llamada {name}.</translation>
        </message>
        <message>
            <source>Skills are folders of instructions, scripts and resources the model loads when a task needs them. The model sees each skill's name and description; it reads the rest with the Load skill tool, and runs scripts with Run command (which asks first). A chat or assistant can turn skills off for itself.</source>
            <translation>Las habilidades son carpetas de instrucciones, scripts y recursos que el modelo carga cuando una tarea las necesita. El modelo ve el nombre y la descripción de cada habilidad; lee el resto con la herramienta Cargar habilidad y ejecuta los scripts con Ejecutar comando (que pregunta antes). Un chat o un asistente puede desactivar habilidades para sí.</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>Habilidades</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>Habilidad</translation>
        </message>
        <message>
            <source>From</source>
            <translation>Origen</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>Descripción</translation>
        </message>
        <message>
            <source>No skills yet. Add a folder that holds a SKILL.md, or a zip of one.</source>
            <translation>Aún no hay habilidades. Añade una carpeta que contenga un SKILL.md, o un zip de ella.</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Añadir carpeta…</translation>
        </message>
        <message>
            <source>Add zip…</source>
            <translation>Añadir zip…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Quitar</translation>
        </message>
        <message>
            <source>Open skills folder</source>
            <translation>Abrir carpeta de habilidades</translation>
        </message>
        <message>
            <source>On: offered to every chat</source>
            <translation>Activada: se ofrece a todos los chats</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>Espacio de trabajo</translation>
        </message>
        <message>
            <source>App</source>
            <translation>App</translation>
        </message>
        <message>
            <source>Cannot be used: {problem}</source>
            <translation>No se puede usar: {problem}</translation>
        </message>
        <message>
            <source>Add a skill folder</source>
            <translation>Añadir una carpeta de habilidad</translation>
        </message>
        <message>
            <source>Add a skill from a zip</source>
            <translation>Añadir una habilidad desde un zip</translation>
        </message>
        <message>
            <source>Zip archives (*.zip)</source>
            <translation>Archivos zip (*.zip)</translation>
        </message>
        <message>
            <source>The skill could not be copied: {reason}</source>
            <translation>No se pudo copiar la habilidad: {reason}</translation>
        </message>
        <message>
            <source>Remove skill</source>
            <translation>Quitar habilidad</translation>
        </message>
        <message>
            <source>Remove the skill {name}? Its folder is deleted.</source>
            <translation>¿Quitar la habilidad {name}? Se borrará su carpeta.</translation>
        </message>
        <message>
            <source>The skill could not be removed: {reason}</source>
            <translation>No se pudo quitar la habilidad: {reason}</translation>
        </message>
    </context>
    <context>
        <name>SlashPrompts</name>
        <message>
            <source>Prompts from MCP servers</source>
            <translation>Prompts de servidores MCP</translation>
        </message>
        <message>
            <source>From MCP server {0}</source>
            <translation>Del servidor MCP {0}</translation>
        </message>
        <message>
            <source>The prompt /{0} failed: {1}</source>
            <translation>El prompt /{0} falló: {1}</translation>
        </message>
    </context>
    <context>
        <name>SourcesView</name>
        <message>
            <source>page %1, line %2</source>
            <translation>página %1, línea %2</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>página %1</translation>
        </message>
        <message>
            <source>line %1</source>
            <translation>línea %1</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Fuentes</translation>
        </message>
        <message>
            <source>Source %1: %2</source>
            <translation>Fuente %1: %2</translation>
        </message>
    </context>
    <context>
        <name>Spinner</name>
        <message>
            <source>Running</source>
            <translation>En ejecución</translation>
        </message>
    </context>
    <context>
        <name>StarterCard</name>
        <message>
            <source>Add</source>
            <extracomment>Cards per row at the dialog's usual width (one column when it is narrow).</extracomment>
            <translation>Añadir</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>Añadir {name}</translation>
        </message>
        <message>
            <source>Added</source>
            <translation>Añadido</translation>
        </message>
        <message>
            <source>Added as “{name}”; edit it in Assistants</source>
            <translation>Añadido como «{name}»; edítalo en Asistentes</translation>
        </message>
    </context>
    <context>
        <name>StartupSkeleton</name>
        <message>
            <source>Message</source>
            <extracomment>Enter was pressed: send it once the app can the box had the keyboard focus called at Enter once a question can be sent before the window is built</extracomment>
            <translation>Mensaje</translation>
        </message>
        <message>
            <source>Type a message… (it is sent once the app has loaded)</source>
            <translation>Escribe un mensaje… (se enviará cuando la app termine de cargar)</translation>
        </message>
        <message>
            <source>Chats</source>
            <extracomment>clicked before the app had loaded listed by :meth:`fill` pressed in the window before :meth:`fill`</extracomment>
            <translation>Chats</translation>
        </message>
        <message>
            <source>+  New chat</source>
            <translation>+  Nuevo chat</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Actividad de herramientas</translation>
        </message>
        <message>
            <source>Opening…</source>
            <translation>Abriendo…</translation>
        </message>
        <message>
            <source>Opening your chats…</source>
            <translation>Abriendo tus chats…</translation>
        </message>
    </context>
    <context>
        <name>SyncDialog</name>
        <message>
            <source>saved in the keyring — type to replace</source>
            <translation>guardada en el llavero: escribe para sustituirla</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>Contraseña</translation>
        </message>
        <message>
            <source>Secret access key</source>
            <translation>Clave de acceso secreta</translation>
        </message>
        <message>
            <source>User name</source>
            <translation>Nombre de usuario</translation>
        </message>
        <message>
            <source>Access key ID</source>
            <translation>ID de clave de acceso</translation>
        </message>
        <message>
            <source>Enter the password.</source>
            <translation>Introduzca la contraseña.</translation>
        </message>
        <message>
            <source>Enter the user name.</source>
            <translation>Introduzca el nombre de usuario.</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>Sincronización</translation>
        </message>
        <message>
            <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
            <translation>Sincroniza tus chats, asistentes y configuración con tus otros equipos a través de un almacenamiento tuyo. Todo se cifra aquí con tu frase de contraseña antes de salir; las claves de API nunca salen.</translation>
        </message>
        <message>
            <source>Sync target</source>
            <translation>Destino de sincronización</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>Carpeta…</translation>
        </message>
        <message>
            <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
            <translation>Elige una carpeta que otra herramienta replique (Syncthing, Dropbox, iCloud Drive, OneDrive)</translation>
        </message>
        <message>
            <source>AWS when empty; e.g. https://minio.example:9000</source>
            <translation>Vacío: AWS; p. ej., https://minio.example:9000</translation>
        </message>
        <message>
            <source>us-east-1</source>
            <translation>us-east-1</translation>
        </message>
        <message>
            <source>the same passphrase again</source>
            <translation>la misma frase de contraseña otra vez</translation>
        </message>
        <message>
            <source>the same on every computer; it cannot be recovered</source>
            <translation>la misma en todos los equipos; no se puede recuperar</translation>
        </message>
        <message>
            <source>Sync automatically (after changes and every 5 minutes)</source>
            <translation>Sincronizar automáticamente (tras los cambios y cada 5 minutos)</translation>
        </message>
        <message>
            <source>Target</source>
            <translation>Destino</translation>
        </message>
        <message>
            <source>S3 endpoint</source>
            <translation>Endpoint de S3</translation>
        </message>
        <message>
            <source>S3 region</source>
            <translation>Región de S3</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>Frase de contraseña</translation>
        </message>
        <message>
            <source>Repeat</source>
            <translation>Repetir</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>Probar conexión</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>Sincronizar ahora</translation>
        </message>
        <message>
            <source>{user} (from the URL)</source>
            <translation>{user} (de la URL)</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>Elegir la carpeta de sincronización</translation>
        </message>
        <message>
            <source>Enter where to sync: {forms}.</source>
            <translation>Indica dónde sincronizar: {forms}.</translation>
        </message>
        <message>
            <source>Unknown target: use {forms}.</source>
            <translation>Destino desconocido: usa {forms}.</translation>
        </message>
        <message>
            <source>Enter the S3 access key ID.</source>
            <translation>Escribe el ID de clave de acceso de S3.</translation>
        </message>
        <message>
            <source>Enter the S3 secret access key.</source>
            <translation>Escribe la clave de acceso secreta de S3.</translation>
        </message>
        <message>
            <source>Choose a passphrase (the same on every computer).</source>
            <translation>Elige una frase de contraseña (la misma en todos los equipos).</translation>
        </message>
        <message>
            <source>The two passphrases differ.</source>
            <translation>Las dos frases de contraseña no coinciden.</translation>
        </message>
        <message>
            <source>Testing the connection…</source>
            <translation>Probando la conexión…</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Sincronizando…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>La sincronización falló: {error}</translation>
        </message>
        <message>
            <source>Status: {status}</source>
            <translation>Estado: {status}</translation>
        </message>
    </context>
    <context>
        <name>SyncScheduler</name>
        <message>
            <source>just now</source>
            <translation>ahora mismo</translation>
        </message>
        <message>
            <source>{minutes} min ago</source>
            <translation>hace {minutes} min</translation>
        </message>
        <message>
            <source>{hours} h ago</source>
            <translation>hace {hours} h</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Sincronizando…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>La sincronización falló: {error}</translation>
        </message>
        <message>
            <source>Not synced yet</source>
            <translation>Aún sin sincronizar</translation>
        </message>
        <message>
            <source>Synced {when}</source>
            <translation>Sincronizado {when}</translation>
        </message>
    </context>
    <context>
        <name>SyncStatusLabel</name>
        <message>
            <source>Sync: click for Settings → Sync</source>
            <translation>Sincronización: haz clic para ir a Configuración → Sincronización</translation>
        </message>
    </context>
    <context>
        <name>SyncTexts</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>hace %n día</numerusform>
                <numerusform>hace %n días</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes waiting</source>
            <translation>
                <numerusform>%n cambio pendiente</numerusform>
                <numerusform>%n cambios pendientes</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TemporaryBanner</name>
        <message>
            <source>Temporary chat: it uses no memory and is not kept once you leave it.</source>
            <translation>Chat temporal: no usa memoria y no se guarda al salir de él.</translation>
        </message>
    </context>
    <context>
        <name>TitleModelCombo</name>
        <message>
            <source>Model that writes titles</source>
            <translation>Modelo que escribe los títulos</translation>
        </message>
        <message>
            <source>The chat's own model, or one model for every title (a small, quick one is enough)</source>
            <translation>El modelo del propio chat, o un mismo modelo para todos los títulos (basta con uno pequeño y rápido)</translation>
        </message>
        <message>
            <source>The chat's model</source>
            <translation>El modelo del chat</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} en {provider}</translation>
        </message>
    </context>
    <context>
        <name>ToolActivity</name>
        <message>
            <source>{model} cannot use tools: none are sent to it</source>
            <translation>{model} no puede usar herramientas: no se le envía ninguna</translation>
        </message>
    </context>
    <context>
        <name>ToolCallCard</name>
        <message>
            <source>… starting</source>
            <translation>… iniciando</translation>
        </message>
        <message>
            <source>waiting for approval</source>
            <translation>esperando aprobación</translation>
        </message>
        <message>
            <source>running</source>
            <translation>en ejecución</translation>
        </message>
        <message>
            <source>✓ succeeded</source>
            <translation>✓ correcta</translation>
        </message>
        <message>
            <source>✗ failed</source>
            <translation>✗ falló</translation>
        </message>
        <message>
            <source>⊘ denied</source>
            <translation>⊘ denegada</translation>
        </message>
        <message>
            <source>■ cancelled</source>
            <translation>■ cancelada</translation>
        </message>
        <message>
            <source>Show details of {tool}</source>
            <translation>Mostrar detalles de {tool}</translation>
        </message>
        <message>
            <source>pending</source>
            <translation>pendiente</translation>
        </message>
        <message>
            <source>Output of {tool}</source>
            <translation>Salida de {tool}</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Cancelar</translation>
        </message>
        <message>
            <source>Stop this call; the assistant is told it was cancelled</source>
            <translation>Detener esta llamada; se le dice al asistente que se canceló</translation>
        </message>
        <message>
            <source>Cancel {tool}</source>
            <translation>Cancelar {tool}</translation>
        </message>
        <message>
            <source>Details of {tool}</source>
            <translation>Detalles de {tool}</translation>
        </message>
        <message>
            <source>waiting {time} · review it above</source>
            <translation>esperando {time} · revísala arriba</translation>
        </message>
        <message>
            <source>… [more output in the result]</source>
            <translation>… [más salida en el resultado]</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumentos</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>Vista previa</translation>
        </message>
        <message>
            <source>Result · {status}</source>
            <translation>Resultado · {status}</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Mostrar menos</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Mostrar todo</translation>
        </message>
        <message>
            <source>Image returned by {tool}</source>
            <translation>Imagen devuelta por {tool}</translation>
        </message>
        <message>
            <source>[image: {type}] (cannot be shown)</source>
            <translation>[imagen: {type}] (no se puede mostrar)</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>Cancelando…</translation>
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
            <translation>salida {code}</translation>
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
            <translation>esperando tu aprobación</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>en ejecución…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>fallaron</translation>
        </message>
        <message>
            <source>some failed</source>
            <translation>algunas fallaron</translation>
        </message>
        <message>
            <source>done</source>
            <translation>hecho</translation>
        </message>
        <message>
            <source>running</source>
            <translation>en curso</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Mostrar menos</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Mostrar todo</translation>
        </message>
        <message>
            <source>Show the tool calls of this answer</source>
            <translation>Mostrar las llamadas a herramientas de esta respuesta</translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n llamada a herramienta</numerusform>
                <numerusform>%n llamadas a herramientas</numerusform>
            </translation>
        </message>
        <message>
            <source>Tool call details</source>
            <translation>Detalles de las llamadas a herramientas</translation>
        </message>
        <message>
            <source>{count} more characters</source>
            <translation>{count} caracteres más</translation>
        </message>
    </context>
    <context>
        <name>ToolNames</name>
        <message>
            <source>Read file</source>
            <translation>Leer archivo</translation>
        </message>
        <message>
            <source>List folder</source>
            <translation>Listar carpeta</translation>
        </message>
        <message>
            <source>Search files</source>
            <translation>Buscar en archivos</translation>
        </message>
        <message>
            <source>Write file</source>
            <translation>Escribir archivo</translation>
        </message>
        <message>
            <source>Create file</source>
            <translation>Crear archivo</translation>
        </message>
        <message>
            <source>Edit file</source>
            <translation>Editar archivo</translation>
        </message>
        <message>
            <source>Run command</source>
            <translation>Ejecutar comando</translation>
        </message>
        <message>
            <source>Fetch web page</source>
            <translation>Obtener página web</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Buscar en la web</translation>
        </message>
        <message>
            <source>Search knowledge</source>
            <translation>Buscar en el conocimiento</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>Recordar</translation>
        </message>
        <message>
            <source>Load skill</source>
            <translation>Cargar habilidad</translation>
        </message>
    </context>
    <context>
        <name>ToolSidebar</name>
        <message>
            <source>All calls</source>
            <translation>Todas las llamadas</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>En espera</translation>
        </message>
        <message>
            <source>No waiting calls.</source>
            <translation>No hay llamadas en espera.</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>En ejecución</translation>
        </message>
        <message>
            <source>No running calls.</source>
            <translation>No hay llamadas en ejecución.</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>Correctas</translation>
        </message>
        <message>
            <source>No succeeded calls.</source>
            <translation>No hay llamadas correctas.</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fallidas</translation>
        </message>
        <message>
            <source>No failed calls.</source>
            <translation>No hay llamadas fallidas.</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Denegado</translation>
        </message>
        <message>
            <source>No denied calls.</source>
            <translation>No hay llamadas denegadas.</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Canceladas</translation>
        </message>
        <message>
            <source>No cancelled calls.</source>
            <translation>No hay llamadas canceladas.</translation>
        </message>
        <message>
            <source>{arrow} Turn {number} · {calls}</source>
            <translation>{arrow} Turno {number} · {calls}</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Actividad de herramientas</translation>
        </message>
        <message>
            <source>Show calls</source>
            <translation>Mostrar llamadas</translation>
        </message>
        <message>
            <source>Show only calls with this status</source>
            <translation>Mostrar solo las llamadas con este estado</translation>
        </message>
        <message>
            <source>Tool calls the assistant makes appear here.</source>
            <translation>Las llamadas a herramientas del asistente aparecen aquí.</translation>
        </message>
        <message>
            <source>Turn {number}</source>
            <translation>Turno {number}</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>cancelada</translation>
        </message>
        <message numerus="yes">
            <source>%n calls</source>
            <translation>
                <numerusform>%n llamada</numerusform>
                <numerusform>%n llamadas</numerusform>
            </translation>
        </message>
        <message>
            <source>awaiting_approval</source>
            <translation>esperando aprobación</translation>
        </message>
    </context>
    <context>
        <name>ToolsDialog</name>
        <message>
            <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
            <translation>&lt;b&gt;Permitir&lt;/b&gt; ejecuta una herramienta al momento, &lt;b&gt;Preguntar&lt;/b&gt; te muestra cada llamada (con su diff, comando o URL) antes de ejecutarla, &lt;b&gt;Denegar&lt;/b&gt; no la ejecuta nunca y la herramienta no se ofrece. Las herramientas de solo lectura usan Permitir por defecto; escribir archivos, ejecutar comandos y descargar páginas web, Preguntar.</translation>
        </message>
        <message>
            <source>Allow</source>
            <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
            <translation>Permitir</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Preguntar</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Denegar</translation>
        </message>
        <message>
            <source>built-in</source>
            <translation>integrada</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>Herramientas</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Herramienta</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>Origen</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Activa</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>Política</translation>
        </message>
        <message>
            <source>Tools and their policies</source>
            <translation>Herramientas y sus políticas</translation>
        </message>
        <message>
            <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
            <translation>&lt;b&gt;Permitidas siempre&lt;/b&gt;: estas herramientas se ejecutan sin preguntar en todos los chats hasta que lo revoques.</translation>
        </message>
        <message>
            <source>Calls</source>
            <translation>Llamadas</translation>
        </message>
        <message>
            <source>Since</source>
            <translation>Desde</translation>
        </message>
        <message>
            <source>Always allowed tools</source>
            <translation>Herramientas permitidas siempre</translation>
        </message>
        <message>
            <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
            <translation>Ninguna herramienta está permitida siempre. Elige «Permitir siempre» en una aprobación para añadir una.</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>Olvidar</translation>
        </message>
        <message>
            <source>Ask again in this chat for these tools</source>
            <translation>Volver a preguntar en este chat por estas herramientas</translation>
        </message>
        <message>
            <source>Offered to the assistant (each chat can still switch it off in the composer's tools menu)</source>
            <translation>Se ofrece al asistente (cada chat puede desactivarla en el menú de herramientas del cuadro de mensaje)</translation>
        </message>
        <message>
            <source>Switch MCP tools on or off in Settings → MCP servers</source>
            <translation>Activa o desactiva las herramientas MCP en Configuración → Servidores MCP</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>Política de {tool}</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>Predeterminado ({policy})</translation>
        </message>
        <message>
            <source>All calls</source>
            <translation>Todas las llamadas</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Revocar</translation>
        </message>
        <message>
            <source>Revoke {tool} {calls}</source>
            <translation>Revocar {tool} {calls}</translation>
        </message>
        <message>
            <source>Ask again before {tool} runs</source>
            <translation>Volver a preguntar antes de ejecutar {tool}</translation>
        </message>
        <message>
            <source>Allowed for this chat: </source>
            <translation>Permitidas en este chat: </translation>
        </message>
        <message>
            <source>No tool is allowed just for this chat.</source>
            <translation>Ninguna herramienta está permitida solo para este chat.</translation>
        </message>
        <message>
            <source>This chat's commands may use the network.</source>
            <translation>Los comandos de este chat pueden usar la red.</translation>
        </message>
        <message>
            <source>Revoked: {tool} will ask again before it runs.</source>
            <translation>Revocado: {tool} volverá a preguntar antes de ejecutarse.</translation>
        </message>
        <message>
            <source>This chat will ask again.</source>
            <translation>Este chat volverá a preguntar.</translation>
        </message>
    </context>
    <context>
        <name>TopBar</name>
        <message>
            <source>Provider</source>
            <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app's name (it is in the window's title).</extracomment>
            <translation>Proveedor</translation>
        </message>
        <message>
            <source>The provider of this chat</source>
            <translation>El proveedor de este chat</translation>
        </message>
        <message>
            <source>No provider</source>
            <translation>Sin proveedor</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Chat settings: model, temperature, max tokens, reasoning</source>
            <translation>Ajustes del chat: modelo, temperatura, tokens máximos, razonamiento</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>Ajustes del chat</translation>
        </message>
        <message>
            <source>Providers…</source>
            <translation>Proveedores…</translation>
        </message>
        <message>
            <source>Add or edit providers</source>
            <translation>Añadir o editar proveedores</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>Proveedores</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>Actividad de herramientas</translation>
        </message>
        <message>
            <source>Show or hide the tool activity panel (Ctrl+B)</source>
            <translation>Mostrar u ocultar el panel de actividad de herramientas (Ctrl+B)</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{model} en {provider}</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>Elegir un modelo</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Elegir un modelo…</translation>
        </message>
        <message>
            <source>Click to search and switch models</source>
            <translation>Haz clic para buscar y cambiar de modelo</translation>
        </message>
        <message>
            <source> (this chat sets its own)</source>
            <translation> (este chat tiene los suyos)</translation>
        </message>
        <message>
            <source>no provider</source>
            <translation>sin proveedor</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>sin modelo</translation>
        </message>
    </context>
    <context>
        <name>TrustFields</name>
        <message>
            <source>Run commands in a sandbox</source>
            <translation>Ejecutar los comandos en un sandbox</translation>
        </message>
        <message>
            <source>Commands see the system read-only, may write only in the workspace and a private temporary folder, and never see this app's data (Linux: bubblewrap; macOS: sandbox-exec). Without a sandbox on this system they run as you.</source>
            <translation>Los comandos ven el sistema como solo lectura, solo pueden escribir en el espacio de trabajo y en una carpeta temporal privada, y nunca ven los datos de esta aplicación (Linux: bubblewrap; macOS: sandbox-exec). Si el sistema no ofrece sandbox, se ejecutan como tú.</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>Permitir que los comandos en sandbox usen la red</translation>
        </message>
        <message>
            <source>Off: a command cannot reach the internet or servers on this computer (downloads, package installs and git push fail).</source>
            <translation>Desactivado: un comando no puede llegar a internet ni a servidores de este equipo (las descargas, las instalaciones de paquetes y git push fallan).</translation>
        </message>
        <message>
            <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
            <translation>p. ej., 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</translation>
        </message>
        <message>
            <source>Local or private hosts fetch_url may read</source>
            <translation>Hosts locales o privados que fetch_url puede leer</translation>
        </message>
        <message>
            <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
            <translation>fetch_url rechaza este equipo, la red local y las direcciones de metadatos de la nube, para que una página web no pueda hacer que el asistente las lea. Se permiten los hosts, sufijos .dominio, direcciones o redes que indiques aquí.</translation>
        </message>
        <message>
            <source>e.g. JAVA_HOME, NODE_*</source>
            <translation>p. ej., JAVA_HOME, NODE_*</translation>
        </message>
        <message>
            <source>Environment variables run_command passes on</source>
            <translation>Variables de entorno que pasa run_command</translation>
        </message>
        <message>
            <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
            <translation>Los comandos reciben un entorno limpio (PATH, HOME, idioma…). Indica aquí más variables, o prefijos terminados en *; un prefijo nunca incluye claves, tokens ni contraseñas.</translation>
        </message>
        <message>
            <source>Hosts fetch_url may read:</source>
            <translation>Hosts que fetch_url puede leer:</translation>
        </message>
        <message>
            <source>Variables for commands:</source>
            <translation>Variables para comandos:</translation>
        </message>
        <message>
            <source>Not a host, address or network: {entries}</source>
            <translation>No es un host, dirección ni red: {entries}</translation>
        </message>
        <message>
            <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
            <translation>No es un nombre de variable (letras, dígitos y _, o un prefijo terminado en *): {entries}</translation>
        </message>
    </context>
    <context>
        <name>TurnStatus</name>
        <message>
            <source>Rate limited</source>
            <translation>Límite de solicitudes alcanzado</translation>
        </message>
        <message>
            <source>Overloaded</source>
            <translation>Sobrecargado</translation>
        </message>
        <message>
            <source>Service unavailable</source>
            <translation>Servicio no disponible</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>Tiempo agotado</translation>
        </message>
        <message>
            <source>Server error ({reason})</source>
            <translation>Error del servidor ({reason})</translation>
        </message>
        <message>
            <source>Could not connect ({reason})</source>
            <translation>No se pudo conectar ({reason})</translation>
        </message>
        <message>
            <source>retry {number}</source>
            <translation>reintento {number}</translation>
        </message>
        <message>
            <source>retrying in {seconds} s</source>
            <translation>reintentando en {seconds} s</translation>
        </message>
        <message>
            <source>retrying now</source>
            <translation>reintentando ahora</translation>
        </message>
        <message>
            <source>{reason} — {wait} ({count})</source>
            <translation>{reason} — {wait} ({count})</translation>
        </message>
        <message>
            <source>Answer status</source>
            <translation>Estado de la respuesta</translation>
        </message>
        <message>
            <source>Thinking…  </source>
            <translation>Pensando…  </translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Cancelar</translation>
        </message>
        <message>
            <source>Stop this answer</source>
            <translation>Detener esta respuesta</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>Permitir una vez</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>Ejecutar esta llamada ahora; volver a preguntar la próxima vez</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>Permitir en este chat</translation>
        </message>
        <message>
            <source>Do not ask again in this chat</source>
            <translation>No volver a preguntar en este chat</translation>
        </message>
        <message>
            <source>Always allow</source>
            <translation>Permitir siempre</translation>
        </message>
        <message>
            <source>Never ask again, in any chat</source>
            <translation>No volver a preguntar en ningún chat</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Denegar</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told</source>
            <translation>No ejecutarla; se le comunica al asistente</translation>
        </message>
        <message>
            <source>Allow network for this chat</source>
            <translation>Permitir la red en este chat</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on</source>
            <translation>Los comandos de este chat pueden usar la red a partir de ahora</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>Continuar</translation>
        </message>
        <message>
            <source>Let the assistant use tools for more rounds</source>
            <translation>Dejar que el asistente use herramientas durante más rondas</translation>
        </message>
        <message>
            <source>Stop here</source>
            <translation>Parar aquí</translation>
        </message>
        <message>
            <source>End the answer with what it has so far</source>
            <translation>Terminar la respuesta con lo que tiene hasta ahora</translation>
        </message>
        <message>
            <source>Waiting for your approval: {tool}</source>
            <translation>Esperando tu aprobación: {tool}</translation>
        </message>
        <message>
            <source>Waiting for your approval ({number} of {count}): {tool}</source>
            <translation>Esperando tu aprobación ({number} de {count}): {tool}</translation>
        </message>
        <message numerus="yes">
            <source>The assistant has used tools for %n round(s). Let it continue?</source>
            <translation>
                <numerusform>El asistente ha usado herramientas durante %n ronda. ¿Dejar que continúe?</numerusform>
                <numerusform>El asistente ha usado herramientas durante %n rondas. ¿Dejar que continúe?</numerusform>
            </translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>Esperando a que termine otra respuesta de este proveedor…</translation>
        </message>
        <message>
            <source>Also waiting ({number} of {count}): {tool}</source>
            <translation>También en espera ({number} de {count}): {tool}</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Pensando</translation>
        </message>
    </context>
    <context>
        <name>UndoBar</name>
        <message>
            <source>Undo</source>
            <translation>Deshacer</translation>
        </message>
        <message>
            <source>Bring the chat back from the trash</source>
            <translation>Recuperar el chat de la papelera</translation>
        </message>
        <message>
            <source>Moved “{title}” to the trash</source>
            <translation>«{title}» se movió a la papelera</translation>
        </message>
        <message numerus="yes">
            <source>Moved %n chats to the trash</source>
            <translation>
                <numerusform>Se movió %n chat a la papelera</numerusform>
                <numerusform>Se movieron %n chats a la papelera</numerusform>
            </translation>
        </message>
        <message>
            <source>Undo this turn's changes</source>
            <translation>Deshacer los cambios de este turno</translation>
        </message>
        <message>
            <source>Put back the files the assistant wrote in its last turn in this chat</source>
            <translation>Restaurar los archivos que el asistente escribió en su último turno de este chat</translation>
        </message>
        <message numerus="yes">
            <source>…and %n more</source>
            <translation>
                <numerusform>…y %n más</numerusform>
                <numerusform>…y %n más</numerusform>
            </translation>
        </message>
        <message>
            <source>Put back these files as they were before the assistant's last turn? Files it created are deleted.

{files}</source>
            <translation>¿Devolver estos archivos a como estaban antes del último turno del asistente? Los archivos que creó se eliminan.

{files}</translation>
        </message>
        <message>
            <source>Nothing was undone: files {reason}</source>
            <translation>No se deshizo nada: archivos {reason}</translation>
        </message>
        <message>
            <source>Nothing was undone: {reason}</source>
            <translation>No se deshizo nada: {reason}</translation>
        </message>
        <message numerus="yes">
            <source>Undone: %n file(s) put back</source>
            <translation>
                <numerusform>Deshecho: %n archivo restaurado</numerusform>
                <numerusform>Deshecho: %n archivos restaurados</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n deleted</source>
            <translation>
                <numerusform>%n eliminado</numerusform>
                <numerusform>%n eliminados</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UpdateDialog</name>
        <message>
            <source>Update available</source>
            <translation>Actualización disponible</translation>
        </message>
        <message>
            <source>Version {new} is available (you have {current}).</source>
            <translation>La versión {new} está disponible (tienes la {current}).</translation>
        </message>
        <message>
            <source>No release notes.</source>
            <translation>Sin notas de la versión.</translation>
        </message>
        <message>
            <source>Release notes</source>
            <translation>Notas de la versión</translation>
        </message>
        <message>
            <source>Download: {file}</source>
            <translation>Descarga: {file}</translation>
        </message>
        <message>
            <source>No installer for this system in this release: the release page lists what there is.</source>
            <translation>Esta versión no tiene instalador para este sistema: la página de la versión muestra lo que hay.</translation>
        </message>
        <message>
            <source>&amp;Download</source>
            <translation>&amp;Descargar</translation>
        </message>
        <message>
            <source>Release &amp;page</source>
            <translation>&amp;Página de la versión</translation>
        </message>
    </context>
    <context>
        <name>UpdateNotice</name>
        <message>
            <source>Version {version} is available</source>
            <translation>La versión {version} está disponible</translation>
        </message>
        <message>
            <source>See what is new and download it</source>
            <translation>Ver las novedades y descargarla</translation>
        </message>
    </context>
    <context>
        <name>UsagePage</name>
        <message>
            <source>Period</source>
            <extracomment>One plain thread for the page's reads (not the event loop's default executor: under qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).</extracomment>
            <translation>Periodo</translation>
        </message>
        <message>
            <source>Last 7 days</source>
            <translation>Últimos 7 días</translation>
        </message>
        <message>
            <source>Last 30 days</source>
            <translation>Últimos 30 días</translation>
        </message>
        <message>
            <source>All time</source>
            <translation>Todo el tiempo</translation>
        </message>
        <message>
            <source>Usage per model</source>
            <translation>Uso por modelo</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modelo</translation>
        </message>
        <message>
            <source>Answers</source>
            <translation>Respuestas</translation>
        </message>
        <message>
            <source>Tokens in</source>
            <translation>Tokens de entrada</translation>
        </message>
        <message>
            <source>Tokens out</source>
            <translation>Tokens de salida</translation>
        </message>
        <message>
            <source>Cost</source>
            <translation>Coste</translation>
        </message>
        <message>
            <source>Median tok/s</source>
            <translation>Mediana tok/s</translation>
        </message>
        <message>
            <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
            <translation>Cuenta cada respuesta guardada, en todos los chats y versiones (también la papelera). Los costes son los que indicó el proveedor o, si no, se estiman con los precios de los modelos (Configuración → Precios de modelos); «—»: precio desconocido, «≥»: algunos tokens no lo tienen. Las velocidades son tokens por segundo mientras llegaba la respuesta.</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Leyendo…</translation>
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
            <translation>{input} entrada · {output} salida</translation>
        </message>
        <message>
            <source> ({count} reasoning)</source>
            <translation> ({count} de razonamiento)</translation>
        </message>
        <message>
            <source> · {seconds} s</source>
            <translation> · {seconds} s</translation>
        </message>
        <message>
            <source> · {rate} tok/s</source>
            <translation> · {rate} tok/s</translation>
        </message>
        <message>
            <source>Tokens for this answer: prompt in, generated out</source>
            <translation>Tokens de esta respuesta: entrada del prompt, salida generada</translation>
        </message>
        <message>
            <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
            <translation>≈: estimado a partir del texto (el proveedor no envió recuentos: la respuesta se detuvo o falló)</translation>
        </message>
        <message>
            <source>First token after {seconds} s</source>
            <translation>Primer token tras {seconds} s</translation>
        </message>
        <message>
            <source>{rate} tokens per second</source>
            <translation>{rate} tokens por segundo</translation>
        </message>
        <message>
            <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
            <translation>Coste aproximado {cost} (indicado por el proveedor o, si no, según los precios de los modelos)</translation>
        </message>
        <message>
            <source>No price known for this model (Settings → Model prices)</source>
            <translation>No se conoce el precio de este modelo (Configuración → Precios de modelos)</translation>
        </message>
        <message>
            <source>tokens {input} in · {output} out</source>
            <translation>tokens {input} entrada · {output} salida</translation>
        </message>
        <message>
            <source> ({count} thinking)</source>
            <translation> ({count} de razonamiento)</translation>
        </message>
        <message>
            <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
            <translation>Este chat: {input} tokens de entrada ({cached} en caché), {output} tokens de salida ({thinking} de razonamiento)</translation>
        </message>
        <message>
            <source>, about {cost}</source>
            <translation>, unos {cost}</translation>
        </message>
        <message>
            <source>, no price known for this model</source>
            <translation>, no se conoce el precio de este modelo</translation>
        </message>
    </context>
    <context>
        <name>VirtualColumn</name>
        <message>
            <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
            <translation>Pregunta lo que quieras. Pulsa Intro para enviar y Mayús+Intro para una nueva línea.</translation>
        </message>
        <message>
            <source>↓  Jump to latest</source>
            <translation>↓  Ir a lo más reciente</translation>
        </message>
    </context>
    <context>
        <name>Voice</name>
        <message>
            <source>No microphone could be opened. Connect one, or allow this app to use the microphone in the system's privacy settings.</source>
            <translation>No se pudo abrir ningún micrófono. Conecte uno o permita que esta aplicación use el micrófono en la configuración de privacidad del sistema.</translation>
        </message>
        <message>
            <source>No sound output could be opened, so nothing can be read aloud here.</source>
            <translation>No se pudo abrir ninguna salida de sonido, así que aquí no se puede leer nada en voz alta.</translation>
        </message>
        <message>
            <source>This system has no speech engine. Install espeak-ng, or set a speech model in Settings.</source>
            <translation>Este sistema no tiene motor de voz. Instale espeak-ng o configure un modelo de voz en Configuración.</translation>
        </message>
        <message>
            <source>Set a transcription model in Settings to dictate.</source>
            <translation>Configure un modelo de transcripción en Configuración para dictar.</translation>
        </message>
        <message>
            <source>This answer has no text to read aloud.</source>
            <translation>Esta respuesta no tiene texto para leer en voz alta.</translation>
        </message>
        <message>
            <source>The speech audio could not be played.</source>
            <translation>No se pudo reproducir el audio de voz.</translation>
        </message>
        <message>
            <source>Nothing was recorded.</source>
            <translation>No se grabó nada.</translation>
        </message>
    </context>
    <context>
        <name>VoiceSettings</name>
        <message>
            <source>Provider that reads aloud</source>
            <translation>Proveedor que lee en voz alta</translation>
        </message>
        <message>
            <source>Speech model</source>
            <translation>Modelo de voz</translation>
        </message>
        <message>
            <source>Empty: the system's voice. e.g. gpt-4o-mini-tts</source>
            <translation>Vacío: la voz del sistema. p. ej., gpt-4o-mini-tts</translation>
        </message>
        <message>
            <source>Voice</source>
            <translation>Voz</translation>
        </message>
        <message>
            <source>Provider that writes dictation</source>
            <translation>Proveedor que transcribe el dictado</translation>
        </message>
        <message>
            <source>Transcription model</source>
            <translation>Modelo de transcripción</translation>
        </message>
        <message>
            <source>Empty: no dictation. e.g. whisper-1</source>
            <translation>Vacío: sin dictado. p. ej., whisper-1</translation>
        </message>
        <message>
            <source>Read aloud on</source>
            <translation>Leer en voz alta con</translation>
        </message>
        <message>
            <source>Dictation on</source>
            <translation>Dictado con</translation>
        </message>
        <message>
            <source>The chat's provider</source>
            <translation>El proveedor del chat</translation>
        </message>
    </context>
    <context>
        <name>WebSearchSettings</name>
        <message>
            <source>Search service</source>
            <translation>Servicio de búsqueda</translation>
        </message>
        <message>
            <source>None</source>
            <translation>Ninguna</translation>
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
            <translation>Dirección del servicio de búsqueda</translation>
        </message>
        <message>
            <source>Search service API key</source>
            <translation>Clave de API del servicio de búsqueda</translation>
        </message>
        <message>
            <source>Chats with "Search the web" on use the provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
            <translation>Los chats con «Buscar en la web» activado usan la búsqueda propia del proveedor si la tiene (OpenAI Responses, Anthropic, Gemini, OpenRouter). Los demás proveedores reciben una herramienta web_search con el servicio elegido aquí. SearXNG debe permitir el formato json (search: formats: [html, json] en su settings.yml).</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>Servicio</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Dirección</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>Clave de API</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>Investigación</translation>
        </message>
        <message>
            <source>Research: search rounds at most</source>
            <translation>Investigación: rondas de búsqueda como máximo</translation>
        </message>
        <message>
            <source> min</source>
            <translation> min</translation>
        </message>
        <message>
            <source>Research: minutes at most</source>
            <translation>Investigación: minutos como máximo</translation>
        </message>
        <message>
            <source>No ceiling</source>
            <translation>Sin tope</translation>
        </message>
        <message>
            <source>Research: cost ceiling in US dollars</source>
            <translation>Investigación: tope de coste en dólares estadounidenses</translation>
        </message>
        <message>
            <source>Search rounds</source>
            <translation>Rondas de búsqueda</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>Límite de tiempo</translation>
        </message>
        <message>
            <source>Cost ceiling</source>
            <translation>Tope de coste</translation>
        </message>
        <message>
            <source>A research run stops at whichever limit comes first and says so in its report. The cost counts only models with a known price (Model prices).</source>
            <translation>Una investigación se detiene en el primer límite que alcance y lo indica en su informe. El coste solo cuenta modelos con precio conocido (Precios de modelos).</translation>
        </message>
        <message>
            <source>https://searx.example.org</source>
            <translation>https://searx.example.org</translation>
        </message>
        <message>
            <source>Default: the service's API</source>
            <translation>Predeterminado: la API del servicio</translation>
        </message>
        <message>
            <source>SearXNG needs the address of an instance.</source>
            <translation>SearXNG necesita la dirección de una instancia.</translation>
        </message>
    </context>
    <context>
        <name>WelcomePage</name>
        <message>
            <source>Connect a model provider</source>
            <translation>Conecta un proveedor de modelos</translation>
        </message>
        <message>
            <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
            <translation>Assista se comunica con servicios compatibles con OpenAI: un proveedor en la nube con tu clave de API o un servidor local como LM Studio. Elige uno para empezar:</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>Añadir {name}</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Add a provider</source>
            <translation>Añade un proveedor</translation>
        </message>
        <message>
            <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
            <translation>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio o cualquier servidor compatible con OpenAI. Las claves se quedan en el llavero de tu sistema.</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>Añadir un proveedor…</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>Elige un modelo</translation>
        </message>
        <message>
            <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
            <translation>Escribe en el selector de modelos para buscar entre todos los modelos de tus proveedores; marca con estrella los que más uses.</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>Elegir un modelo…</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>Preguntar</translation>
        </message>
        <message>
            <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
            <translation>Escribe abajo y pulsa Intro. Elige una carpeta de trabajo y el asistente podrá leer y editar sus archivos; pregunta antes de cambiar nada.</translation>
        </message>
        <message>
            <source>Write a message</source>
            <translation>Escribir un mensaje</translation>
        </message>
        <message>
            <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
            <translation>&lt;h2&gt;Te damos la bienvenida a Assista&lt;/h2&gt;</translation>
        </message>
        <message>
            <source>Three steps to your first answer:</source>
            <translation>Tres pasos hasta tu primera respuesta:</translation>
        </message>
        <message>
            <source>Or start from a &lt;a href="starters"&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
            <translation>O empieza con un &lt;a href="starters"&gt;asistente listo&lt;/a&gt;: traductor, programador, editor…</translation>
        </message>
        <message>
            <source>Starter assistants</source>
            <translation>Asistentes de inicio</translation>
        </message>
        <message>
            <source>Step {number} done</source>
            <translation>Paso {number} hecho</translation>
        </message>
        <message>
            <source>Step {number}</source>
            <translation>Paso {number}</translation>
        </message>
    </context>
    <context>
        <name>_PathRow</name>
        <message>
            <source>Browse…</source>
            <translation>Examinar…</translation>
        </message>
    </context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>No licence text is shipped with this component; its licence is named above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About {app}</source>
        <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A desktop chat client for large language models.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence: {licence}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{app} is built with these components:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bundled components</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Component</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a component to read its licence.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AppTray</name>
    <message>
        <source>{app} tray menu</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quick ask…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Hide window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Show window</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>… {count} more lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(empty diff)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>built-in tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP server “{server}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed: {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat: {title}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the chat that asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show chat {title}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason for denying (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>If you deny, this reason is sent to the assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason for denying</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run this call now; ask again next time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run {tool} without asking in this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not run it; the assistant is told (with your reason)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow &amp;once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow for this &amp;chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Al&amp;ways allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed for this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allowed within {scope}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AssistantForm</name>
    <message>
        <source>e.g. Code reviewer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional: what it is for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The system prompt of chats started from it (empty: the default system prompt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s default model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only these tools (otherwise the app&apos;s tool settings)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enabled tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider chosen in the window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(removed provider {id})</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AssistantGallery</name>
    <message>
        <source>Starter assistants</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AssistantPicker</name>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Manage assistants…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AssistantsDialog</name>
    <message>
        <source>Assistants</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move up (drag to reorder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move down (drag to reorder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starter assistants…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New assistant {number}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AttachmentChip</name>
    <message>
        <source>Remove {name}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BodyMenu</name>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy code block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy link address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select all</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BranchBar</name>
    <message>
        <source>Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit this message and send it again (the original is kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer again (this answer is kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version {index} of {count}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CallProgress</name>
    <message>
        <source>Progress</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>Waiting for another answer from this provider to finish…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatFiles</name>
    <message>
        <source>Assista JSON, lossless (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Markdown, readable (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatKnowledgeButton</name>
    <message>
        <source>Knowledge bases of this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model can search the checked knowledge bases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No knowledge bases yet (Knowledge…)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatPane</name>
    <message>
        <source>Images and text (*.png *.jpg *.jpeg *.gif *.webp *.txt *.md *.py *.json *.csv *.log *.yaml *.yml *.toml *.xml *.html *.js *.ts *.rs *.go *.java *.c *.h *.cpp);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete messages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatSettingsPopover</name>
    <message>
        <source>This chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set the temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning effort</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the web</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the web in this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use the defaults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Web</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knowledge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{model} — {provider}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No provider yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default ({value})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default (the model&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This model does not say it can reason; the setting is sent anyway.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assistant {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unset values come from {source}. These apply to this chat only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Actual size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme: follow &amp;system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme: &amp;light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme: &amp;dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme: &amp;high contrast</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CompareChooser</name>
    <message>
        <source>Compare models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick {low} to {high} models. Each answers the same question with this chat&apos;s conversation, attachments and tools; every answer is kept as a version of the reply.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chosen models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Chosen (%n): </source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing chosen yet: click models in the list.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose {low} to {high} models</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CompareColumnView</name>
    <message>
        <source>Answer of {model}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Figures of this answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop this answer (the others go on); what it wrote so far is kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop {model}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep this one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the answer of {model}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{count} tool rounds so far. Go on?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped at the tool-round limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{seconds} s to first token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{rate} tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{input} in · {output} out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the first token…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CompareLauncher</name>
    <message>
        <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>Compare answers</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Comparing %n model(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Back to chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Built-in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP: {server}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach images or text files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the folder the file tools may read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch tools on or off for this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools for this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder: {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose workspace…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the folder the file tools may use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder: none</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>tools: %n on</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>tools: none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a workspace folder to use the file tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tools available</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP servers…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConversationActions</name>
    <message>
        <source>&amp;Import chats…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export chat…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;all chats…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Search chats…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit system &amp;prompt…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Assistants…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose &amp;model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop &amp;all answers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show a&amp;rchived chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;trash</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DesktopNotifier</name>
    <message>
        <source>Answer failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{chat}: {tool} waits for your approval</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DesktopTab</name>
    <message>
        <source>Keep running in the tray when the window is closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closing the window hides it; the tray icon&apos;s menu brings it back, and its Quit quits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tray</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quick ask from anywhere: bind the command “assista quick --selection” to a keyboard shortcut in your desktop&apos;s keyboard settings. It opens a small window over everything with the selected text in the question.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quick ask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Look for a new version once a day</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Updates</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Release feed URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A feed in GitHub&apos;s Releases API format; empty: the project&apos;s own releases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Release feed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Portable mode (--data-dir): the app never looks for updates.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The release feed must be an https:// URL.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditBanner</name>
    <message>
        <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel edit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FindableText</name>
    <message>
        <source>Find</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HitDelegate</name>
    <message>
        <source>You</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Title</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>archived</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ImportExport</name>
    <message>
        <source>Open a chat to export it (or use Export all chats…).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export all chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n chats</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Export to {file} failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported {what} as {format} to {file} ({size} bytes).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import of {file} failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import finished</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>KnowledgeDetail</name>
    <message>
        <source>Folders and files of the knowledge base</source>
        <extracomment>Wire APIs whose servers embed, and the embedding request each takes.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop indexing the selected folder or file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedding provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search it in the open chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistants…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every chat with a checked assistant searches this knowledge base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folders and files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Index now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Indexing progress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel indexing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No knowledge base yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full text only</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passage(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>{files}, {chunks}; not indexed yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{files}, {chunks}; indexed {when}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No assistants yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Looking for files…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computing embeddings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{done} of {total}: {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Indexing failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; {n} passages embedded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (cancelled: what was done is kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) could not be read: </source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Add a folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add files</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>KnowledgeDialog</name>
    <message>
        <source>Knowledge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knowledge bases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New knowledge base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is already a knowledge base named {name}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename knowledge base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete knowledge base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete {name} and its index? Your files are not touched.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LanguageChoice</name>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new language shows after the app is restarted.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Languages</name>
    <message>
        <source>System default</source>
        <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Launch</name>
    <message>
        <source> and </source>
        <extracomment>Loaded one after the other once the window is on screen, with the window&apos;s events handled between them (each takes 20-90 ms here): it can be moved, resized and repainted while the app loads.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Found {servers} running on this computer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{app} could not open its data folder:

{error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{app} could not open its data:

{error}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LocaleFormat</name>
    <message>
        <source>{number}k</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Opening…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose &amp;workspace folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;references…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Providers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model p&amp;rices…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Tools…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;MCP servers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Knowledge…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;ync…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toggle &amp;tool activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;chat list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Focus &amp;message box</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to pending &amp;approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;log folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped at the tool-round limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a provider to start chatting.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preferences saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpAttachMenu</name>
    <message>
        <source>Files…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From MCP server…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpCatalogDialog</name>
    <message>
        <source>MCP server catalog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the registry again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Servers in the catalog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How to install</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing the saved copy; reading the registry…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the MCP registry…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offline ({0}): showing the copy saved on {1}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n server(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This server has no package or address the app can install (for example a container image).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot add it: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpDialog</name>
    <message>
        <source>MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save and start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the servers and (re)start them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From a file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste JSON…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>new — say how to reach it, then Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>switched off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not started — Save to start it</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>running · %n tools</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>starting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>restarting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (last error: {error})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · changes not applied yet (Save)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove MCP server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove {name}? Its tools leave every chat when you Save.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed {name}. Save to stop it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON files (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Imported %n servers: {names}. Save to start them.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>There are two servers named {name}; rename one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved. Starting the servers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name} is not started: Save to start it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restarting {name}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpResourceDialog</name>
    <message>
        <source>Attach from an MCP server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No running MCP server offers resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot attach {0}: {1}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpServerForm</name>
    <message>
        <source>Command (stdio)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL (Streamable HTTP)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL (SSE, legacy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>line {number}: write it as {example}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown in lists; also the prefix of its tools&apos; names</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start this server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>npx, uvx, python, /path/to/server…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-y @modelcontextprotocol/server-filesystem &quot;~/My notes&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KEY=value, one per line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>working folder (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>https://example.com/mcp</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authorization: Bearer …, one per line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Connect with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server stderr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show stderr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools of this server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arguments: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy for {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default ({policy})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its tools are listed here once it runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide stderr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(the server is not started)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(nothing written yet)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpSignInRow</name>
    <message>
        <source>Sign-in status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign in to this server in your browser</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget this server&apos;s sign-in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for you to finish signing in in the browser…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This server needs you to sign in.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signed in.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No sign-in used.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageAccessibility</name>
    <message>
        <source>Code block, {language}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quote</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Table, {rows} rows, {columns} columns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Being written</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageHeader</name>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy this message as Markdown (the arrow has more)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More actions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More: continue, fork into a new chat, delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue this answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fork into a new chat from here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask other models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete this and what follows…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageWidget</name>
    <message>
        <source>Reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You asked to continue · {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You · {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant · {model} · {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant · {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>■ Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ Interrupted — the app closed while this answer was streaming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show less</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thought for {seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy message as Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy message as plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy code block {number}: {start}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Search models, or type a model id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model matches. Press Enter to use the text as a model id.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PasteDialog</name>
    <message>
        <source>Paste MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste a Claude-Desktop-style configuration, e.g. {&quot;mcpServers&quot;: {&quot;time&quot;: {&quot;command&quot;: &quot;uvx&quot;, &quot;args&quot;: [&quot;mcp-server-time&quot;]}}}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP configuration JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PricesDialog</name>
    <message>
        <source>Model id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input $/M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output $/M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cached input $/M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model prices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Costs use the provider&apos;s own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {row}: enter a model id.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {row}: prices must be numbers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {row}: enter input and output prices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {row}: prices cannot be negative.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PromptArgumentsDialog</name>
    <message>
        <source>/{0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fill in: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProviderDialog</name>
    <message>
        <source>Providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to my providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add detected provider to my providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard your changes to “{name}”?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove “{name}”? Its saved API key is deleted too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added to your providers.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProviderForm</name>
    <message>
        <source>Header line {number} should look like “Name: value”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Provider name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A name you will recognize</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>https://example.com/v1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base &amp;URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Get a key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API &amp;key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fetch models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask the provider which models it offers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extra headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional, one per line — Name: value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extra &amp;headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an environment variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read from {variable} (never stored by Assista)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not needed for {name} (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste your API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter the base URL (for example https://api.openai.com/v1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The base URL must start with http:// or https:// and name a server.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the key in the API key field, not in the {name} header.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Working…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ Internal error: no asyncio event loop is running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing connection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fetching models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> — check the API key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unexpected error: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>✓ Connected — %n models</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✓ %n models found</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Hide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide API key</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProviderList</name>
    <message>
        <source>Providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No base URL yet</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProviderOptionsBox</name>
    <message>
        <source>Tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools capability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Images</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Images capability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning capability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>minimal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>low</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>medium</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>high</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model behaviour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask the model to think before answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extended thinking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thinking budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning effort</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chain responses on the server (previous_response_id)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stateless replay (store: false)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Responses API mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capabilities</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProviderText</name>
    <message>
        <source>{name} — not saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name} — from environment ({variable})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name} — detected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name} is running on this computer. Add it to edit it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key is read from {variable} each time Assista starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys are stored in the system keyring ({keyring})</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QuickAskWindow</name>
    <message>
        <source>Quick ask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Question</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask anything… (Enter sends)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert &amp;selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert the text selected in another application (or the clipboard)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open in the main window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue this chat in the main window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a provider in the main window first (Settings → Providers).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing is selected and the clipboard is empty.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QuitGuard</name>
    <message>
        <source>Quit while answering?</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ResponsivePanels</name>
    <message>
        <source>Show the chat list (Ctrl+Shift+L)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat list</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SaveBanner</name>
    <message>
        <source>Retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try to store the answer again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retry saving the answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Still not saved: {error}. The answer is kept here; try again.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ScopeRow</name>
    <message>
        <source>Calls inside this scope will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allow these</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allow within this scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run this call, and never ask again for calls inside this scope</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>d MMM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search every chat — words, &quot;exact phrases&quot;, any language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No matches.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Type to search every chat, every branch, tool calls and titles.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SectionDelegate</name>
    <message numerus="yes">
        <source>%n messages</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Now: {state}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Segment</name>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ServerQuestionCard</name>
    <message>
        <source>MCP server {0} asks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP server {0} wants the model to answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In “{0}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The messages the server sends</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most {0} tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(an image, {0})</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SessionItems</name>
    <message>
        <source>waiting for the provider</source>
        <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>answering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting for your approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>new answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Today</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Older</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last changed {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted {time}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SessionList</name>
    <message>
        <source>+  New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search chats…   Ctrl+K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find a chat by a word in it (Ctrl+K)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archived</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show archived chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Chats here are erased after %n days.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Chats here are erased when the app next starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archived chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archived chats appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The trash is empty.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restore</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete forever…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unarchive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete “{title}” forever? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete every chat in the trash forever? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete forever</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SessionPromptDialog</name>
    <message>
        <source>System prompt of this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the assistant “{name}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the default system prompt (Settings → Preferences)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The new chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use this chat&apos;s own system prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Otherwise the chat uses {origin}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Without it, this chat uses {origin}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full system prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no system prompt)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Follow the system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>High contrast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave out the oldest turns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace the oldest turns with a summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy URL cannot contain spaces ({example}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy URL needs a host name ({example}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy port must be a number from 1 to 65535.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy URL is only scheme://host:port ({example}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>General</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Web search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The assistant new chats start with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added to every chat: who you are, how you like answers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom instructions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default system prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base font size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> pt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New chats use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A chat&apos;s own prompt (Chat → Edit system prompt…) or its assistant&apos;s replaces the default; custom instructions are always added.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What happens when a chat no longer fits the model&apos;s context window (you are told when it does)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Erase at the next start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Let the model title new chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After a new chat&apos;s first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>When a chat is too long</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep deleted chats in the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Titles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxy URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: the system&apos;s settings. http://host:8080, socks5://host:1080</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No proxy for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>localhost,127.0.0.1,.internal.example</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proxy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answers at once per provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More chats than this asking one provider at once wait their turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Portable mode (--data-dir).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No assistant</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Message box</source>
        <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename the chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the chat to the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SlashPrompts</name>
    <message>
        <source>Prompts from MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From MCP server {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The prompt /{0} failed: {1}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SourcesView</name>
    <message>
        <source>Sources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Spinner</name>
    <message>
        <source>Running</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StarterCard</name>
    <message>
        <source>Add</source>
        <extracomment>Cards per row at the dialog&apos;s usual width (one column when it is narrow).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added as “{name}”; edit it in Assistants</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StartupSkeleton</name>
    <message>
        <source>Chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+  New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening your chats…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SyncDialog</name>
    <message>
        <source>saved in the keyring — type to replace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Password</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret access key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Access key ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AWS when empty; e.g. https://minio.example:9000</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>us-east-1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the same passphrase again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the same on every computer; it cannot be recovered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync automatically (after changes and every 5 minutes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S3 endpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S3 region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{user} (from the URL)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the sync folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter where to sync: {forms}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown target: use {forms}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter the S3 access key ID.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter the S3 secret access key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a passphrase (the same on every computer).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The two passphrases differ.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing the connection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status: {status}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SyncScheduler</name>
    <message>
        <source>just now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{minutes} min ago</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{hours} h ago</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not synced yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Synced {when}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SyncStatusLabel</name>
    <message>
        <source>Sync: click for Settings → Sync</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SyncTexts</name>
    <message numerus="yes">
        <source>%n days ago</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changes waiting</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolActivity</name>
    <message>
        <source>{model} cannot use tools: none are sent to it</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ToolCallCard</name>
    <message>
        <source>… starting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting for approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⊘ denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>■ cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show details of {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output of {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop this call; the assistant is told it was cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details of {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting {time} · review it above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>… [more output in the result]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result · {status}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image returned by {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[image: {type}] (cannot be shown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ToolCallText</name>
    <message>
        <source>{seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{minutes} min {seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit {code}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Diff</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ToolCallsInline</name>
    <message>
        <source>running…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>some failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the tool calls of this answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n tool calls</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolSidebar</name>
    <message>
        <source>All calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No waiting calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No running calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No succeeded calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No failed calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No denied calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No cancelled calls.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{arrow} Turn {number} · {calls}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only calls with this status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool calls the assistant makes appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn {number}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n calls</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>awaiting_approval</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ToolsDialog</name>
    <message>
        <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow</source>
        <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>built-in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP: {server}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tools and their policies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Since</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allowed tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask again in this chat for these tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offered to the assistant (each chat can still switch it off in the composer&apos;s tools menu)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch MCP tools on or off in Settings → MCP servers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy for {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default ({policy})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revoke</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revoke {tool} {calls}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask again before {tool} runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed for this chat: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No tool is allowed just for this chat.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revoked: {tool} will ask again before it runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This chat will ask again.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TopBar</name>
    <message>
        <source>Provider</source>
        <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app&apos;s name (it is in the window&apos;s title).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider of this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat settings: model, temperature, max tokens, reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Providers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add or edit providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Providers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide the tool activity panel (Ctrl+B)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{model} on {provider}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click to search and switch models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (this chat sets its own)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no model</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TrustFields</name>
    <message>
        <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local or private hosts fetch_url may read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. JAVA_HOME, NODE_*</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment variables run_command passes on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hosts fetch_url may read:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variables for commands:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not a host, address or network: {entries}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TurnStatus</name>
    <message>
        <source>Rate limited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overloaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Service unavailable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server error ({reason})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not connect ({reason})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retry {number}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrying in {seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>retrying now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{reason} — {wait} ({count})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thinking…  </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop this answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run this call now; ask again next time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow for this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not ask again in this chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never ask again, in any chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not run it; the assistant is told</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Let the assistant use tools for more rounds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End the answer with what it has so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for your approval: {tool}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>The assistant has used tools for %n round(s). Let it continue?</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting for another answer from this provider to finish…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UndoBar</name>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bring the chat back from the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moved “{title}” to the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Moved %n chats to the trash</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UpdateDialog</name>
    <message>
        <source>Update available</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version {new} is available (you have {current}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No release notes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Release notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download: {file}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No installer for this system in this release: the release page lists what there is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Release &amp;page</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UpdateNotice</name>
    <message>
        <source>Version {version} is available</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>See what is new and download it</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UsagePage</name>
    <message>
        <source>Period</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage per model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Median tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UsageText</name>
    <message>
        <source>{input} in · {output} out</source>
        <extracomment>Where a view gets the user&apos;s model prices from (they change in Settings).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ({count} reasoning)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · {seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · {rate} tok/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens for this answer: prompt in, generated out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First token after {seconds} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{rate} tokens per second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No price known for this model (Settings → Model prices)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens {input} in · {output} out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ({count} thinking)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, about {cost}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, no price known for this model</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VirtualColumn</name>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>↓  Jump to latest</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WebSearchSettings</name>
    <message>
        <source>Search service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SearXNG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Brave Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tavily</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search service address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search service API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chats with &quot;Search the web&quot; on use the provider&apos;s own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>https://searx.example.org</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default: the service&apos;s API</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SearXNG needs the address of an instance.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Connect a model provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add {name}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WelcomeView</name>
    <message>
        <source>Add a provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a provider…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick a model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Three steps to your first answer:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Or start from a &lt;a href=&quot;starters&quot;&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starter assistants</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step {number} done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step {number}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>parent</name>
    <message>
        <source>Browse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Servers listed in the official MCP registry</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>

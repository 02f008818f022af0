<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US" sourcelanguage="en">
<context>
    <name>CompareChooser</name>
    <message numerus="yes">
        <source>Chosen (%n): </source>
        <translation>
            <numerusform>Chosen (%n): </numerusform>
            <numerusform>Chosen (%n): </numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message numerus="yes">
        <source>Comparing %n answer(s)</source>
        <translation>
            <numerusform>Comparing %n answer</numerusform>
            <numerusform>Comparing %n answers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message numerus="yes">
        <source>tools: %n on</source>
        <translation>
            <numerusform>tools: %n on</numerusform>
            <numerusform>tools: %n on</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n match</numerusform>
            <numerusform>%n matches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FindableText</name>
    <message numerus="yes">
        <source>%n found</source>
        <translation>
            <numerusform>%n found</numerusform>
            <numerusform>%n found</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ImportExport</name>
    <message numerus="yes">
        <source>%n chats</source>
        <translation>
            <numerusform>%n chat</numerusform>
            <numerusform>%n chats</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>InspectorSettings</name>
    <message numerus="yes">
        <source>Deleted %n recorded requests.</source>
        <translation>
            <numerusform>Deleted %n recorded request.</numerusform>
            <numerusform>Deleted %n recorded requests.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>KnowledgeDetail</name>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passages</source>
        <translation>
            <numerusform>%n passage</numerusform>
            <numerusform>%n passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files could not be read: </source>
        <translation>
            <numerusform>%n file could not be read: </numerusform>
            <numerusform>%n files could not be read: </numerusform>
        </translation>
    </message>
</context>
<context>
    <name>McpCatalogDialog</name>
    <message numerus="yes">
        <source>%n server(s)</source>
        <translation>
            <numerusform>%n server</numerusform>
            <numerusform>%n servers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>McpDialog</name>
    <message numerus="yes">
        <source>Imported %n servers: {names}. Save to start them.</source>
        <translation>
            <numerusform>Imported %n server: {names}. Save to start it.</numerusform>
            <numerusform>Imported %n servers: {names}. Save to start them.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MemoryPage</name>
    <message numerus="yes">
        <source>%n memories</source>
        <translation>
            <numerusform>%n memory</numerusform>
            <numerusform>%n memories</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PageCount</name>
    <message numerus="yes">
        <source>%n slide(s)</source>
        <translation>
            <numerusform>%n slide</numerusform>
            <numerusform>%n slides</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sheet(s)</source>
        <translation>
            <numerusform>%n sheet</numerusform>
            <numerusform>%n sheets</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n chapter(s)</source>
        <translation>
            <numerusform>%n chapter</numerusform>
            <numerusform>%n chapters</numerusform>
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
    <name>ProjectActions</name>
    <message numerus="yes">
        <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
        <translation>
            <numerusform>Its %n chat is kept and moves out of the project. Its instructions and the text of its files are deleted.</numerusform>
            <numerusform>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted the project {name}; its %n chats are in the list.</source>
        <translation>
            <numerusform>Deleted the project {name}; its %n chat is in the list.</numerusform>
            <numerusform>Deleted the project {name}; its %n chats are in the list.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProjectSection</name>
    <message numerus="yes">
        <source>%n chats</source>
        <translation>
            <numerusform>%n chat</numerusform>
            <numerusform>%n chats</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProviderForm</name>
    <message numerus="yes">
        <source>✓ Connected — %n models</source>
        <translation>
            <numerusform>✓ Connected — %n model</numerusform>
            <numerusform>✓ Connected — %n models</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✓ %n models found</source>
        <translation>
            <numerusform>✓ %n model found</numerusform>
            <numerusform>✓ %n models found</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuitGuard</name>
    <message numerus="yes">
        <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
        <translation>
            <numerusform>%n chat is still answering. Quit anyway? What it has written so far is kept, marked as stopped.</numerusform>
            <numerusform>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ResearchPanel</name>
    <message numerus="yes">
        <source>Searches (%n):</source>
        <translation>
            <numerusform>Searches (%n):</numerusform>
            <numerusform>Searches (%n):</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sources read (%n):</source>
        <translation>
            <numerusform>Sources read (%n):</numerusform>
            <numerusform>Sources read (%n):</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n page(s) could not be read.</source>
        <translation>
            <numerusform>%n page could not be read.</numerusform>
            <numerusform>%n pages could not be read.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stopped at the limit of %n search round(s).</source>
        <translation>
            <numerusform>Stopped at the limit of %n search round.</numerusform>
            <numerusform>Stopped at the limit of %n search rounds.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message numerus="yes">
        <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
        <translation>
            <numerusform>%n match (the most recent shown) · Enter opens · ↑↓ move · Esc closes</numerusform>
            <numerusform>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
        <translation>
            <numerusform>%n match · Enter opens · ↑↓ move · Esc closes</numerusform>
            <numerusform>%n matches · Enter opens · ↑↓ move · Esc closes</numerusform>
        </translation>
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
</context>
<context>
    <name>SessionList</name>
    <message numerus="yes">
        <source>Chats here are erased after %n days.</source>
        <translation>
            <numerusform>Chats here are erased after %n day.</numerusform>
            <numerusform>Chats here are erased after %n days.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SyncTexts</name>
    <message numerus="yes">
        <source>%n days ago</source>
        <translation>
            <numerusform>%n day ago</numerusform>
            <numerusform>%n days ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changes waiting</source>
        <translation>
            <numerusform>%n change waiting</numerusform>
            <numerusform>%n changes waiting</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolCallsInline</name>
    <message numerus="yes">
        <source>%n tool calls</source>
        <translation>
            <numerusform>%n tool call</numerusform>
            <numerusform>%n tool calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolSidebar</name>
    <message numerus="yes">
        <source>%n calls</source>
        <translation>
            <numerusform>%n call</numerusform>
            <numerusform>%n calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TurnStatus</name>
    <message numerus="yes">
        <source>The assistant has used tools for %n round(s). Let it continue?</source>
        <translation>
            <numerusform>The assistant has used tools for %n round. Let it continue?</numerusform>
            <numerusform>The assistant has used tools for %n rounds. Let it continue?</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UndoBar</name>
    <message numerus="yes">
        <source>Moved %n chats to the trash</source>
        <translation>
            <numerusform>Moved %n chat to the trash</numerusform>
            <numerusform>Moved %n chats to the trash</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…and %n more</numerusform>
            <numerusform>…and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Undone: %n file(s) put back</source>
        <translation>
            <numerusform>Undone: %n file put back</numerusform>
            <numerusform>Undone: %n files put back</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n deleted</source>
        <translation>
            <numerusform>%n deleted</numerusform>
            <numerusform>%n deleted</numerusform>
        </translation>
    </message>
</context>
</TS>

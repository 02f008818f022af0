<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
    <context>
        <name>AboutDialog</name>
        <message>
            <source>No licence text is shipped with this component; its licence is named above.</source>
            <translation>此组件未附带许可证文本；其许可证名称见上方。</translation>
        </message>
        <message>
            <source>About {app}</source>
            <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
            <translation>关于 {app}</translation>
        </message>
        <message>
            <source>A desktop chat client for large language models.</source>
            <translation>面向大语言模型的桌面聊天客户端。</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>许可证：{licence}</translation>
        </message>
        <message>
            <source>{app} is built with these components:</source>
            <translation>{app} 使用了以下组件：</translation>
        </message>
        <message>
            <source>Bundled components</source>
            <translation>内置组件</translation>
        </message>
        <message>
            <source>Component</source>
            <translation>组件</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>版本</translation>
        </message>
        <message>
            <source>Licence</source>
            <translation>许可证</translation>
        </message>
        <message>
            <source>Licence text</source>
            <translation>许可证文本</translation>
        </message>
        <message>
            <source>Select a component to read its licence.</source>
            <translation>选择一个组件以查看其许可证。</translation>
        </message>
    </context>
    <context>
        <name>AnswerImage</name>
        <message>
            <source>Image {width}×{height}</source>
            <translation>图片 {width}×{height}</translation>
        </message>
        <message>
            <source>Save as…</source>
            <translation>另存为…</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Save image</source>
            <translation>保存图片</translation>
        </message>
        <message>
            <source>Images (*.{suffix})</source>
            <translation>图片 (*.{suffix})</translation>
        </message>
        <message>
            <source>The image could not be saved: {reason}</source>
            <translation>无法保存图片：{reason}</translation>
        </message>
        <message>
            <source>The image could not be opened: {reason}</source>
            <translation>无法打开图片：{reason}</translation>
        </message>
        <message>
            <source>No application opens images.</source>
            <translation>没有可以打开图片的应用程序。</translation>
        </message>
    </context>
    <context>
        <name>AnswerImages</name>
        <message>
            <source>Image not shown: it is larger than the app allows (10 MB, 8192×8192 pixels).</source>
            <extracomment>The widest an answer's image is shown (a click on Open shows it whole). Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).</extracomment>
            <translation>图片未显示：超过了应用允许的大小（10 MB，8192×8192 像素）。</translation>
        </message>
        <message>
            <source>Image not shown: the provider sent a link instead of the picture.</source>
            <translation>图片未显示：服务商发送的是链接而不是图片。</translation>
        </message>
        <message>
            <source>Image not shown: it could not be downloaded.</source>
            <translation>图片未显示：无法下载。</translation>
        </message>
        <message>
            <source>The provider could not make the image.</source>
            <translation>服务商未能生成图片。</translation>
        </message>
        <message>
            <source>Image not shown: the data is not a picture the app can show (PNG, JPEG, GIF or WebP).</source>
            <translation>图片未显示：数据不是应用能显示的图片（PNG、JPEG、GIF 或 WebP）。</translation>
        </message>
        <message>
            <source>Image not shown: its data is broken.</source>
            <translation>图片未显示：数据已损坏。</translation>
        </message>
    </context>
    <context>
        <name>AppTray</name>
        <message>
            <source>{app} tray menu</source>
            <translation>{app} 托盘菜单</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>新建聊天(&amp;N)</translation>
        </message>
        <message>
            <source>&amp;Quick ask…</source>
            <translation>快速提问(&amp;Q)…</translation>
        </message>
        <message>
            <source>&amp;Hide window</source>
            <translation>隐藏窗口(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Show window</source>
            <translation>显示窗口(&amp;S)</translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>… {count} more lines</source>
            <translation>… 另有 {count} 行</translation>
        </message>
        <message>
            <source>(empty diff)</source>
            <translation>（空差异）</translation>
        </message>
        <message>
            <source>built-in tool</source>
            <translation>内置工具</translation>
        </message>
        <message>
            <source>MCP server “{server}”</source>
            <translation>MCP 服务器“{server}”</translation>
        </message>
        <message>
            <source>Changes</source>
            <translation>更改</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>URL</source>
            <translation>URL</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>参数</translation>
        </message>
        <message>
            <source>Approval needed: {tool}</source>
            <translation>需要批准：{tool}</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>需要批准</translation>
        </message>
        <message>
            <source>Chat: {title}</source>
            <translation>聊天：{title}</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>新聊天</translation>
        </message>
        <message>
            <source>Show the chat that asks</source>
            <translation>显示发出请求的聊天</translation>
        </message>
        <message>
            <source>Show chat {title}</source>
            <translation>显示聊天 {title}</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>预览</translation>
        </message>
        <message>
            <source>Reason for denying (optional)</source>
            <translation>拒绝理由（可选）</translation>
        </message>
        <message>
            <source>If you deny, this reason is sent to the assistant</source>
            <translation>如果拒绝，此理由将发送给助手</translation>
        </message>
        <message>
            <source>Reason for denying</source>
            <translation>拒绝理由</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>现在运行此调用；下次再询问</translation>
        </message>
        <message>
            <source>Run {tool} without asking in this chat</source>
            <translation>在此聊天中运行 {tool} 时不再询问</translation>
        </message>
        <message>
            <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
            <translation>在所有聊天中都不再询问 {tool}（可在 设置 → 工具 中撤销）</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told (with your reason)</source>
            <translation>不运行；会告知助手（附上你的理由）</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on (forget it in Settings → Tools)</source>
            <translation>此聊天的命令从现在起可以使用网络（可在 设置 → 工具 中撤销）</translation>
        </message>
        <message>
            <source>Run this command with the network; ask again next time</source>
            <translation>允许此命令使用网络运行；下次再询问</translation>
        </message>
        <message>
            <source>Full arguments</source>
            <translation>完整参数</translation>
        </message>
        <message>
            <source>Allow network for this &amp;chat</source>
            <translation>允许此聊天使用网络(&amp;C)</translation>
        </message>
        <message>
            <source>Allow &amp;once</source>
            <translation>允许一次(&amp;O)</translation>
        </message>
        <message>
            <source>Allow for this &amp;chat</source>
            <translation>在此聊天中允许(&amp;C)</translation>
        </message>
        <message>
            <source>Al&amp;ways allow</source>
            <translation>始终允许(&amp;W)</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>拒绝(&amp;D)</translation>
        </message>
        <message>
            <source>Allowed once</source>
            <translation>已允许一次</translation>
        </message>
        <message>
            <source>Network allowed for this chat's commands</source>
            <translation>已允许此聊天的命令访问网络</translation>
        </message>
        <message>
            <source>Allowed for this chat</source>
            <translation>已在此聊天中允许</translation>
        </message>
        <message>
            <source>Always allowed</source>
            <translation>始终允许</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>Always allowed within {scope}</source>
            <translation>在 {scope} 范围内始终允许</translation>
        </message>
    </context>
    <context>
        <name>ApprovalTitle</name>
        <message>
            <source>Fetch {host}</source>
            <translation>获取 {host}</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>运行命令</translation>
        </message>
        <message>
            <source>Run a command in {folder}</source>
            <translation>在 {folder} 中运行命令</translation>
        </message>
        <message>
            <source>Create {path}</source>
            <translation>创建 {path}</translation>
        </message>
        <message>
            <source>Overwrite {path}</source>
            <translation>覆盖 {path}</translation>
        </message>
        <message>
            <source>Edit {path}</source>
            <translation>编辑 {path}</translation>
        </message>
        <message>
            <source>Save a memory</source>
            <translation>保存一条记忆</translation>
        </message>
        <message>
            <source>Allow network for this chat's commands</source>
            <translation>允许此聊天的命令访问网络</translation>
        </message>
        <message>
            <source>Sandboxed · no network · writes only in the workspace</source>
            <translation>沙盒中 · 无网络 · 只能写入工作区</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed · writes only in the workspace</source>
            <translation>沙盒中 · 允许网络 · 只能写入工作区</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed for this chat · writes only in the workspace</source>
            <translation>沙盒中 · 此聊天允许网络 · 仅在工作区内写入</translation>
        </message>
        <message>
            <source>Not sandboxed: the sandbox is turned off in Settings → Tools</source>
            <translation>未使用沙盒：已在 设置 → 工具 中关闭沙盒</translation>
        </message>
        <message>
            <source>Not sandboxed: this system offers no sandbox (install bubblewrap)</source>
            <translation>未使用沙盒：此系统没有可用的沙盒（请安装 bubblewrap）</translation>
        </message>
    </context>
    <context>
        <name>AssistantForm</name>
        <message>
            <source>e.g. Code reviewer</source>
            <translation>例如：代码审查员</translation>
        </message>
        <message>
            <source>Optional: what it is for</source>
            <translation>可选：用途</translation>
        </message>
        <message>
            <source>The system prompt of chats started from it (empty: the default system prompt)</source>
            <translation>由它开始的聊天所用的系统提示词（留空：使用默认系统提示词）</translation>
        </message>
        <message>
            <source>Default provider</source>
            <translation>默认提供商</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>默认模型</translation>
        </message>
        <message>
            <source>The provider's default model</source>
            <translation>提供商的默认模型</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>仅使用这些工具</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>仅这些工具（否则使用应用的工具设置）</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>已启用的工具</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>描述</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>系统提示词</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>The provider chosen in the window</source>
            <translation>窗口中选择的提供商</translation>
        </message>
        <message>
            <source>(removed provider {id})</source>
            <translation>（已删除的提供商 {id}）</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>Skills offered to the chats that use this assistant (Settings → Skills adds them)</source>
            <translation>提供给使用此助手的聊天的技能（在 设置 → 技能 中添加）</translation>
        </message>
        <message>
            <source>No skills found (Settings → Skills adds them).</source>
            <translation>未找到技能（在 设置 → 技能 中添加）。</translation>
        </message>
    </context>
    <context>
        <name>AssistantGallery</name>
        <message>
            <source>Starter assistants</source>
            <translation>入门助手</translation>
        </message>
        <message>
            <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
            <translation>可直接使用的助手。添加你需要的：每个都会成为你自己的助手，可在“助手”中编辑或删除。</translation>
        </message>
    </context>
    <context>
        <name>AssistantPicker</name>
        <message>
            <source>Assistant</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
            <translation>此聊天的助手：其系统提示词、模型、温度和工具</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>无助手</translation>
        </message>
        <message>
            <source>Manage assistants…</source>
            <translation>管理助手…</translation>
        </message>
    </context>
    <context>
        <name>AssistantsDialog</name>
        <message>
            <source>Assistants</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>New</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>上移</translation>
        </message>
        <message>
            <source>Move up (drag to reorder)</source>
            <translation>上移（可拖动排序）</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>下移</translation>
        </message>
        <message>
            <source>Move down (drag to reorder)</source>
            <translation>下移（可拖动排序）</translation>
        </message>
        <message>
            <source>Starter assistants…</source>
            <translation>入门助手…</translation>
        </message>
        <message>
            <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
            <translation>添加现成的助手（翻译、程序员、编辑…）并作为自己的助手编辑</translation>
        </message>
        <message>
            <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
            <translation>还没有助手。填写表单后点击“保存”，或通过“入门助手”添加现成的助手。</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>New assistant</source>
            <translation>新助手</translation>
        </message>
        <message>
            <source>New assistant {number}</source>
            <translation>新助手 {number}</translation>
        </message>
        <message>
            <source>Delete assistant</source>
            <translation>删除助手</translation>
        </message>
        <message>
            <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
            <translation>删除助手“{name}”？由它开始的聊天会保留消息。</translation>
        </message>
    </context>
    <context>
        <name>AttachFilters</name>
        <message>
            <source>Images</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>PDF documents</source>
            <translation>PDF 文档</translation>
        </message>
        <message>
            <source>Word documents</source>
            <translation>Word 文档</translation>
        </message>
        <message>
            <source>Spreadsheets</source>
            <translation>电子表格</translation>
        </message>
        <message>
            <source>Presentations</source>
            <translation>演示文稿</translation>
        </message>
        <message>
            <source>EPUB books</source>
            <translation>EPUB 电子书</translation>
        </message>
        <message>
            <source>Web pages</source>
            <translation>网页</translation>
        </message>
        <message>
            <source>Text and source code</source>
            <translation>文本和源代码</translation>
        </message>
        <message>
            <source>All supported files ({patterns})</source>
            <translation>所有支持的文件 ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>所有文件 (*)</translation>
        </message>
    </context>
    <context>
        <name>AttachmentCard</name>
        <message>
            <source>{name} is no longer at {path}, and the chat keeps only its text.</source>
            <translation>{name} 已不在 {path}，聊天中只保留了它的文本。</translation>
        </message>
        <message>
            <source>{name} could not be opened: {reason}</source>
            <translation>无法打开 {name}：{reason}</translation>
        </message>
        <message>
            <source>No application opens {name}.</source>
            <translation>没有可以打开 {name} 的应用程序。</translation>
        </message>
        <message>
            <source>Open {name}</source>
            <translation>打开 {name}</translation>
        </message>
        <message>
            <source>Open {file}</source>
            <translation>打开 {file}</translation>
        </message>
        <message>
            <source>Show extracted text</source>
            <translation>显示提取的文本</translation>
        </message>
        <message>
            <source>Extracted text of {name}</source>
            <translation>{name} 的提取文本</translation>
        </message>
        <message>
            <source>Hide extracted text</source>
            <translation>隐藏提取的文本</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove {name}</source>
            <translation>移除 {name}</translation>
        </message>
    </context>
    <context>
        <name>BodyMenu</name>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Copy code block</source>
            <translation>复制代码块</translation>
        </message>
        <message>
            <source>Copy link address</source>
            <translation>复制链接地址</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>全选</translation>
        </message>
    </context>
    <context>
        <name>BranchBar</name>
        <message>
            <source>Edit</source>
            <translation>编辑</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept)</source>
            <translation>编辑此消息并重新发送（保留原消息）</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>重新生成</translation>
        </message>
        <message>
            <source>Answer again (this answer is kept)</source>
            <translation>重新回答（保留此回答）</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>上一个版本</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>下一个版本</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>第 {index} 版，共 {count} 版</translation>
        </message>
    </context>
    <context>
        <name>BundleDialog</name>
        <message>
            <source>{path} is not a file.</source>
            <translation>{path} 不是文件。</translation>
        </message>
        <message>
            <source>The extension is refused: {reason}</source>
            <translation>已拒绝该扩展：{reason}</translation>
        </message>
        <message>
            <source>An MCP server named {name} is already installed.</source>
            <translation>已安装名为 {name} 的 MCP 服务器。</translation>
        </message>
        <message>
            <source>{field} is required.</source>
            <translation>{field} 为必填项。</translation>
        </message>
        <message>
            <source>{field} is not a valid value.</source>
            <translation>{field} 的值无效。</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>安装扩展</translation>
        </message>
        <message>
            <source>{name} {version}</source>
            <translation>{name} {version}</translation>
        </message>
        <message>
            <source>By {author}. {description}</source>
            <translation>作者：{author}。{description}</translation>
        </message>
        <message>
            <source>It runs on this computer as the MCP server {name}, with your permissions; its tools ask before they act unless you allow them. Secrets go to the keyring.</source>
            <translation>它作为 MCP 服务器 {name} 在这台电脑上以你的权限运行；除非你允许，其工具在操作前会先询问。机密信息保存到密钥环。</translation>
        </message>
        <message>
            <source>Install</source>
            <translation>安装</translation>
        </message>
        <message>
            <source>The extension could not be installed: {reason}</source>
            <translation>无法安装该扩展：{reason}</translation>
        </message>
    </context>
    <context>
        <name>CallProgress</name>
        <message>
            <source>Progress</source>
            <translation>进度</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>A temporary chat has one version of each message: edit and regenerate are not available.</source>
            <translation>临时聊天中每条消息只有一个版本：不能编辑或重新生成。</translation>
        </message>
        <message>
            <source>This chat is answering in another Assista process (assista ask); try again once that answer has finished.</source>
            <translation>此对话正在另一个 Assista 进程（assista ask）中回答；请在该回答结束后再试。</translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>正在等待此提供商的另一个回答完成…</translation>
        </message>
        <message>
            <source>Memory removed.</source>
            <translation>已删除记忆。</translation>
        </message>
        <message>
            <source>This memory was already deleted.</source>
            <translation>这条记忆已被删除。</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Assista JSON, lossless (*.json)</source>
            <translation>Assista JSON，无损 (*.json)</translation>
        </message>
        <message>
            <source>Markdown, readable (*.md)</source>
            <translation>Markdown，易读 (*.md)</translation>
        </message>
        <message>
            <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
            <translation>聊天导出 (*.json *.zip);;Assista JSON 导出 (*.json);;ChatGPT 导出 (conversations.json *.zip);;所有文件 (*)</translation>
        </message>
    </context>
    <context>
        <name>ChatKnowledgeButton</name>
        <message>
            <source>Knowledge bases of this chat</source>
            <translation>此聊天的知识库</translation>
        </message>
        <message>
            <source>The model can search the checked knowledge bases</source>
            <translation>模型可以搜索勾选的知识库</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
        </message>
        <message>
            <source>No knowledge bases yet (Knowledge…)</source>
            <translation>还没有知识库（知识库…）</translation>
        </message>
    </context>
    <context>
        <name>ChatPane</name>
        <message>
            <source>Delete messages</source>
            <translation>删除消息</translation>
        </message>
        <message>
            <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
            <translation>删除此消息及其后的所有内容？其下的其他版本也会被删除。此操作无法撤销。</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>附加文件</translation>
        </message>
    </context>
    <context>
        <name>ChatSettingsPopover</name>
        <message>
            <source>This chat</source>
            <translation>此聊天</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>更改…</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Set the temperature</source>
            <translation>设置温度</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>最大令牌数</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推理强度</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>搜索网络</translation>
        </message>
        <message>
            <source>Search the web in this chat</source>
            <translation>在此聊天中搜索网络</translation>
        </message>
        <message>
            <source>Use the defaults</source>
            <translation>使用默认值</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Web</source>
            <translation>网络</translation>
        </message>
        <message>
            <source>Knowledge</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>{model} — {provider}</source>
            <translation>{model} — {provider}</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>无模型</translation>
        </message>
        <message>
            <source>No provider yet</source>
            <translation>还没有提供商</translation>
        </message>
        <message>
            <source>Default ({value})</source>
            <translation>默认（{value}）</translation>
        </message>
        <message>
            <source>Default (the model's)</source>
            <translation>默认（模型的）</translation>
        </message>
        <message>
            <source>off</source>
            <translation>关</translation>
        </message>
        <message>
            <source>on</source>
            <translation>开</translation>
        </message>
        <message>
            <source>This model does not say it can reason; the setting is sent anyway.</source>
            <translation>此模型未声明支持推理；该设置仍会发送。</translation>
        </message>
        <message>
            <source>the assistant {name}</source>
            <translation>助手“{name}”</translation>
        </message>
        <message>
            <source>the provider</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>Unset values come from {source}. These apply to this chat only.</source>
            <translation>未设置的值来自{source}。这些设置仅适用于此聊天。</translation>
        </message>
        <message>
            <source>The provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
            <translation>提供商自带搜索时使用其搜索（OpenAI Responses、Anthropic、Gemini、OpenRouter），否则使用偏好设置中选择的搜索服务</translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Zoom &amp;in</source>
            <translation>放大(&amp;I)</translation>
        </message>
        <message>
            <source>Zoom &amp;out</source>
            <translation>缩小(&amp;O)</translation>
        </message>
        <message>
            <source>&amp;Actual size</source>
            <translation>实际大小(&amp;A)</translation>
        </message>
        <message>
            <source>Theme: follow &amp;system</source>
            <translation>主题：跟随系统(&amp;S)</translation>
        </message>
        <message>
            <source>Theme: &amp;light</source>
            <translation>主题：浅色(&amp;L)</translation>
        </message>
        <message>
            <source>Theme: &amp;dark</source>
            <translation>主题：深色(&amp;D)</translation>
        </message>
        <message>
            <source>Theme: &amp;high contrast</source>
            <translation>主题：高对比度(&amp;H)</translation>
        </message>
    </context>
    <context>
        <name>CompareChooser</name>
        <message>
            <source>Compare models</source>
            <translation>比较模型</translation>
        </message>
        <message>
            <source>Pick {low} to {high} models. Each answers the same question with this chat's conversation, attachments and tools; every answer is kept as a version of the reply.</source>
            <translation>选择 {low} 到 {high} 个模型。每个模型都会基于此聊天的对话、附件和工具回答同一问题；每个回答都会保存为回复的一个版本。</translation>
        </message>
        <message>
            <source>Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to compare.</source>
            <translation>按键：输入以搜索，↑/↓ 移动，Enter 添加或移除，Ctrl+Enter 开始比较。</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>搜索模型</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Chosen models</source>
            <translation>已选模型</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比较</translation>
        </message>
        <message numerus="yes">
            <source>Chosen (%n): </source>
            <translation>
                <numerusform>已选（%n）：</numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing chosen yet: click models in the list.</source>
            <translation>尚未选择：请点击列表中的模型。</translation>
        </message>
        <message>
            <source>Choose {low} to {high} models</source>
            <translation>选择 {low} 到 {high} 个模型</translation>
        </message>
    </context>
    <context>
        <name>CompareColumnView</name>
        <message>
            <source>Answer of {model}</source>
            <translation>{model} 的回答</translation>
        </message>
        <message>
            <source>Figures of this answer</source>
            <translation>此回答的数据</translation>
        </message>
        <message>
            <source>Stop this answer (the others go on); what it wrote so far is kept</source>
            <translation>停止此回答（其他继续）；已写出的内容会保留</translation>
        </message>
        <message>
            <source>Stop {model}</source>
            <translation>停止 {model}</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>保留这个</translation>
        </message>
        <message>
            <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
            <translation>在聊天中显示此回答并从它继续；其他回答保留为其他版本（‹ n/m ›）</translation>
        </message>
        <message>
            <source>Keep the answer of {model}</source>
            <translation>保留 {model} 的回答</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>失败：{error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>未知错误</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>已在工具轮次上限处停止</translation>
        </message>
        <message>
            <source>Keep this answer first: in the chat it can be edited, regenerated, continued, forked or deleted.</source>
            <translation>请先保留此回答：之后可在聊天中编辑、重新生成、继续、分支或删除它。</translation>
        </message>
        <message>
            <source>{seconds} s to first token</source>
            <translation>首个令牌用时 {seconds} 秒</translation>
        </message>
        <message>
            <source>{rate} tok/s</source>
            <translation>{rate} 令牌/秒</translation>
        </message>
        <message>
            <source>{input} in · {output} out</source>
            <translation>输入 {input} · 输出 {output}</translation>
        </message>
        <message>
            <source>{output} out</source>
            <translation>输出 {output}</translation>
        </message>
        <message>
            <source>Waiting for the first token…</source>
            <translation>正在等待第一个令牌…</translation>
        </message>
    </context>
    <context>
        <name>CompareLauncher</name>
        <message>
            <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
            <translation>请先输入要比较的问题，然后点击“比较”（或以 /compare 问题 的形式发送）。</translation>
        </message>
    </context>
    <context>
        <name>CompareView</name>
        <message>
            <source>Compare answers</source>
            <translation>比较回答</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n answer(s)</source>
            <translation>
                <numerusform>正在比较 %n 个回答</numerusform>
            </translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>返回聊天</translation>
        </message>
        <message>
            <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
            <translation>返回聊天并显示第一个回答（或你保留的那个）；每个回答都会保留为回复的一个版本</translation>
        </message>
    </context>
    <context>
        <name>Composer</name>
        <message>
            <source>Built-in</source>
            <translation>内置</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP：{server}</translation>
        </message>
        <message>
            <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
            <translation>消息…  （Enter 发送 · Shift+Enter 换行）</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>附加文件</translation>
        </message>
        <message>
            <source>No workspace</source>
            <translation>无工作区</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may read</source>
            <translation>选择文件工具可以读取的文件夹</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>工作区文件夹</translation>
        </message>
        <message>
            <source>Switch tools on or off for this chat</source>
            <translation>为此聊天开启或关闭工具</translation>
        </message>
        <message>
            <source>Tools for this chat</source>
            <translation>此聊天的工具</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比较</translation>
        </message>
        <message>
            <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
            <translation>同时询问 2 到 4 个模型并并排查看回答（或输入 /compare）</translation>
        </message>
        <message>
            <source>Attach images, PDF, Word, Excel, PowerPoint, EPUB or text files</source>
            <translation>附加图片、PDF、Word、Excel、PowerPoint、EPUB 或文本文件</translation>
        </message>
        <message>
            <source>Compare models</source>
            <translation>比较模型</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>Research: the model plans, searches the web and the chat's knowledge bases in rounds, reads pages and answers with a report citing them (limits in Settings)</source>
            <translation>研究：模型制定计划，分轮搜索网络和本聊天的知识库，阅读网页，并以引用来源的报告作答（限制在设置中）</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>研究</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Workspace folder: {name}</source>
            <translation>工作区文件夹：{name}</translation>
        </message>
        <message>
            <source>Choose workspace…</source>
            <translation>选择工作区…</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may use</source>
            <translation>选择文件工具可以使用的文件夹</translation>
        </message>
        <message>
            <source>Workspace folder: none</source>
            <translation>工作区文件夹：无</translation>
        </message>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>工具：%n 个开启</numerusform>
            </translation>
        </message>
        <message>
            <source>tools: none</source>
            <translation>工具：无</translation>
        </message>
        <message>
            <source>Choose a workspace folder to use the file tools</source>
            <translation>选择工作区文件夹以使用文件工具</translation>
        </message>
        <message>
            <source>No tools available</source>
            <translation>没有可用的工具</translation>
        </message>
        <message>
            <source>All on</source>
            <translation>全部开启</translation>
        </message>
        <message>
            <source>All off</source>
            <translation>全部关闭</translation>
        </message>
        <message>
            <source>Tool settings…</source>
            <translation>工具设置…</translation>
        </message>
        <message>
            <source>MCP servers…</source>
            <translation>MCP 服务器…</translation>
        </message>
    </context>
    <context>
        <name>ConversationActions</name>
        <message>
            <source>&amp;Import chats…</source>
            <translation>导入聊天(&amp;I)…</translation>
        </message>
        <message>
            <source>&amp;Export chat…</source>
            <translation>导出聊天(&amp;E)…</translation>
        </message>
        <message>
            <source>Export &amp;all chats…</source>
            <translation>导出全部聊天(&amp;A)…</translation>
        </message>
        <message>
            <source>&amp;Chat</source>
            <translation>聊天(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Search chats…</source>
            <translation>搜索聊天(&amp;S)…</translation>
        </message>
        <message>
            <source>&amp;Find in this chat…</source>
            <translation>在此聊天中查找(&amp;F)…</translation>
        </message>
        <message>
            <source>Edit system &amp;prompt…</source>
            <translation>编辑系统提示词(&amp;P)…</translation>
        </message>
        <message>
            <source>&amp;Assistants…</source>
            <translation>助手(&amp;A)…</translation>
        </message>
        <message>
            <source>Choose &amp;model…</source>
            <translation>选择模型(&amp;M)…</translation>
        </message>
        <message>
            <source>Stop &amp;all answers</source>
            <translation>停止全部回答(&amp;A)</translation>
        </message>
        <message>
            <source>Show &amp;chats</source>
            <translation>显示聊天(&amp;C)</translation>
        </message>
        <message>
            <source>Show a&amp;rchived chats</source>
            <translation>显示已归档聊天(&amp;R)</translation>
        </message>
        <message>
            <source>Show &amp;trash</source>
            <translation>显示回收站(&amp;T)</translation>
        </message>
    </context>
    <context>
        <name>DefaultPrompt</name>
        <message>
            <source>You are Assista, a helpful assistant running in a desktop app. Use the available tools when they help answer the user's question. Format answers in Markdown.</source>
            <translation>你是 Assista，一个运行在桌面应用中的得力助手。在有助于回答用户问题时使用可用的工具。用 Markdown 格式回答。</translation>
        </message>
    </context>
    <context>
        <name>DesktopNotifier</name>
        <message>
            <source>Answer failed</source>
            <translation>回答失败</translation>
        </message>
        <message>
            <source>Answer ready</source>
            <translation>回答已完成</translation>
        </message>
        <message>
            <source>A chat</source>
            <translation>某个聊天</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>需要批准</translation>
        </message>
        <message>
            <source>{chat}: {tool} waits for your approval</source>
            <translation>{chat}：{tool} 正在等待你的批准</translation>
        </message>
    </context>
    <context>
        <name>DesktopTab</name>
        <message>
            <source>Keep running in the tray</source>
            <extracomment>The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at once, so the status below says whether the desktop took it.</extracomment>
            <translation>在托盘中保持运行</translation>
        </message>
        <message>
            <source>Closing the window hides it; the tray icon's menu brings it back, and its Quit quits</source>
            <translation>关闭窗口只会隐藏它；托盘图标菜单可以重新显示，菜单中的“退出”才会退出</translation>
        </message>
        <message>
            <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
            <translation>此桌面不显示托盘图标：无论此项如何设置，关闭窗口都会退出</translation>
        </message>
        <message>
            <source>Tray</source>
            <translation>托盘</translation>
        </message>
        <message>
            <source>Clear the quick ask shortcut</source>
            <translation>清除快速提问快捷键</translation>
        </message>
        <message>
            <source>No global shortcut</source>
            <translation>不使用全局快捷键</translation>
        </message>
        <message>
            <source>Quick ask shortcut</source>
            <translation>快速提问快捷键</translation>
        </message>
        <message>
            <source>Press the key combination that opens the quick-ask window from any application; it applies at once</source>
            <translation>按下可在任何应用中打开快速提问窗口的组合键；立即生效</translation>
        </message>
        <message>
            <source>Click, then press the combination (Ctrl, Alt or Meta with a key)</source>
            <translation>点击后按下组合键（Ctrl、Alt 或 Meta 加一个键）</translation>
        </message>
        <message>
            <source>Quick ask shortcut status</source>
            <translation>快速提问快捷键状态</translation>
        </message>
        <message>
            <source>Look for a new version once a day</source>
            <translation>每天检查一次新版本</translation>
        </message>
        <message>
            <source>Updates</source>
            <translation>更新</translation>
        </message>
        <message>
            <source>Release feed URL</source>
            <translation>发布源 URL</translation>
        </message>
        <message>
            <source>A feed in GitHub's Releases API format; empty: the project's own releases</source>
            <translation>GitHub Releases API 格式的源；留空：项目自己的发布</translation>
        </message>
        <message>
            <source>Release feed</source>
            <translation>发布源</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir): the app never looks for updates.</source>
            <translation>便携模式（--data-dir）：应用从不检查更新。</translation>
        </message>
        <message>
            <source>The release feed must be an https:// URL.</source>
            <translation>发布源必须是 https:// 网址。</translation>
        </message>
    </context>
    <context>
        <name>EarlierColumnView</name>
        <message>
            <source>Assistant</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>Earlier answer of {model}</source>
            <translation>{model} 之前的回答</translation>
        </message>
        <message>
            <source>The answer you asked about</source>
            <translation>你所询问的回答</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>保留这个</translation>
        </message>
        <message>
            <source>Go on from this answer, as before; the new answers stay as its other versions (‹ n/m ›)</source>
            <translation>像之前一样从此回答继续；新回答保留为其他版本（‹ n/m ›）</translation>
        </message>
        <message>
            <source>Keep the earlier answer</source>
            <translation>保留之前的回答</translation>
        </message>
    </context>
    <context>
        <name>EarlyQuestion</name>
        <message>
            <source>Question sent. Opening the chat…</source>
            <translation>问题已发送。正在打开对话…</translation>
        </message>
    </context>
    <context>
        <name>EditBanner</name>
        <message>
            <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
            <translation>正在编辑之前的消息 — 按 Enter 作为新版本发送；原消息及其回答会保留（‹ › 切换）。</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>取消编辑</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>{provider} did not accept the API key. Check the key in Providers.</source>
            <extracomment>code (or "code+param": the sentence when that param is known) -&gt; the sentence.</extracomment>
            <translation>{provider} 不接受该 API 密钥。请在“提供商”中检查密钥。</translation>
        </message>
        <message>
            <source>{provider} did not accept the API key (HTTP {status}). Check the key in Providers.</source>
            <translation>{provider} 不接受该 API 密钥（HTTP {status}）。请在“提供商”中检查密钥。</translation>
        </message>
        <message>
            <source>{provider} refused access: the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} 拒绝访问：该 API 密钥可能无权使用此模型或端点。</translation>
        </message>
        <message>
            <source>{provider} refused access (HTTP {status}): the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} 拒绝访问（HTTP {status}）：该 API 密钥可能无权使用此模型或端点。</translation>
        </message>
        <message>
            <source>{provider} did not find the address asked for. Check the base URL.</source>
            <translation>{provider} 找不到所请求的地址。请检查基础 URL。</translation>
        </message>
        <message>
            <source>{provider} does not know this model. Choose another model or check its name.</source>
            <translation>{provider} 不认识此模型。请选择其他模型或检查模型名称。</translation>
        </message>
        <message>
            <source>{provider} does not know the model {model}. Choose another model or check its name.</source>
            <translation>{provider} 不认识模型 {model}。请选择其他模型或检查模型名称。</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in a moment.</source>
            <translation>{provider} 正在限制请求（请求过多、过快）。请稍后再试。</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in {retry_after} s.</source>
            <translation>{provider} 正在限制请求（请求过多、过快）。请在 {retry_after} 秒后再试。</translation>
        </message>
        <message>
            <source>{provider} says the account's quota or credit is used up. Check the plan or billing.</source>
            <translation>{provider} 表示账户的配额或额度已用完。请检查套餐或账单。</translation>
        </message>
        <message>
            <source>The conversation is too long for this model's context window. Start a new chat, or delete earlier messages.</source>
            <translation>对话太长，超出了此模型的上下文窗口。请开始新的对话，或删除较早的消息。</translation>
        </message>
        <message>
            <source>{provider} refused the request.</source>
            <translation>{provider} 拒绝了该请求。</translation>
        </message>
        <message>
            <source>{provider} refused the request (HTTP {status}).</source>
            <translation>{provider} 拒绝了该请求（HTTP {status}）。</translation>
        </message>
        <message>
            <source>{provider} had a server error. Try again later.</source>
            <translation>{provider} 发生服务器错误。请稍后再试。</translation>
        </message>
        <message>
            <source>{provider} had a server error (HTTP {status}). Try again later.</source>
            <translation>{provider} 发生服务器错误（HTTP {status}）。请稍后再试。</translation>
        </message>
        <message>
            <source>Could not connect to {provider}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>无法连接到 {provider}。请检查基础 URL、网络和代理，并确认服务器正在运行。</translation>
        </message>
        <message>
            <source>Could not connect to {provider} at {url}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>无法连接到位于 {url} 的 {provider}。请检查基础 URL、网络和代理，并确认服务器正在运行。</translation>
        </message>
        <message>
            <source>{provider} did not answer in time.</source>
            <translation>{provider} 没有及时响应。</translation>
        </message>
        <message>
            <source>The connection to {provider} broke before the answer was complete.</source>
            <translation>与 {provider} 的连接在回答完成前中断了。</translation>
        </message>
        <message>
            <source>{provider} sent an answer that could not be read. Check the base URL.</source>
            <translation>{provider} 返回的回答无法读取。请检查基础 URL。</translation>
        </message>
        <message>
            <source>{provider} sent a reply larger than the limit; it was not read.</source>
            <translation>{provider} 返回的回复超过了大小上限，未被读取。</translation>
        </message>
        <message>
            <source>The base URL of {provider} cannot be used. Check it in Providers.</source>
            <translation>{provider} 的基础 URL 无法使用。请在“提供商”中检查。</translation>
        </message>
        <message>
            <source>{provider} reported an error.</source>
            <translation>{provider} 报告了一个错误。</translation>
        </message>
        <message>
            <source>Choose a model for {provider} first.</source>
            <translation>请先为 {provider} 选择一个模型。</translation>
        </message>
        <message>
            <source>{model} cannot see images. Pick a vision model, or turn on vision for it in Providers if you know it supports images.</source>
            <translation>{model} 无法查看图片。请选择支持视觉的模型；如果确定它支持图片，也可以在“提供商”中为它开启视觉功能。</translation>
        </message>
        <message>
            <source>This chat is still answering; stop it first.</source>
            <translation>此对话仍在回答中；请先停止它。</translation>
        </message>
        <message>
            <source>Research needs something to search: choose a search service (SearXNG, Brave or Tavily) in Settings, or add a knowledge base to the chat.</source>
            <translation>研究需要可搜索的内容：请在设置中选择搜索服务（SearXNG、Brave 或 Tavily），或为聊天添加知识库。</translation>
        </message>
        <message>
            <source>That message is already gone.</source>
            <translation>该消息已不存在。</translation>
        </message>
        <message>
            <source>That chat is gone.</source>
            <translation>该对话已不存在。</translation>
        </message>
        <message>
            <source>A memory needs some text.</source>
            <translation>记忆需要一些文字。</translation>
        </message>
        <message>
            <source>That memory is gone.</source>
            <translation>这条记忆已不存在。</translation>
        </message>
        <message>
            <source>Comparing models is not available in a temporary chat.</source>
            <translation>临时聊天中不能比较模型。</translation>
        </message>
        <message>
            <source>Something unexpected went wrong.</source>
            <translation>发生了意外错误。</translation>
        </message>
        <message>
            <source>A project needs a name.</source>
            <translation>项目需要一个名称。</translation>
        </message>
        <message>
            <source>There is already a project named {name}.</source>
            <translation>已有名为 {name} 的项目。</translation>
        </message>
        <message>
            <source>There is no project named {name}.</source>
            <translation>没有名为 {name} 的项目。</translation>
        </message>
        <message>
            <source>The file {file} does not exist.</source>
            <translation>文件 {file} 不存在。</translation>
        </message>
        <message>
            <source>{file} could not be added to the project.</source>
            <translation>无法将 {file} 添加到项目。</translation>
        </message>
        <message>
            <source>The workspace {folder} is not a folder.</source>
            <translation>工作区 {folder} 不是文件夹。</translation>
        </message>
        <message>
            <source>{sentence} Details: {detail}</source>
            <translation>{sentence} 详情：{detail}</translation>
        </message>
        <message>
            <source>The provider</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>The data folder {folder} does not exist.</source>
            <translation>数据文件夹 {folder} 不存在。</translation>
        </message>
        <message>
            <source>The data folder {folder} holds no Assista database.</source>
            <translation>数据文件夹 {folder} 中没有 Assista 数据库。</translation>
        </message>
        <message>
            <source>The data folder {folder} cannot be written.</source>
            <translation>无法写入数据文件夹 {folder}。</translation>
        </message>
        <message>
            <source>{file} cannot be used.</source>
            <translation>无法使用 {file}。</translation>
        </message>
        <message>
            <source>The data location {folder} exists but is not a folder.</source>
            <translation>数据位置 {folder} 已存在，但不是文件夹。</translation>
        </message>
        <message>
            <source>{flag} needs a folder, for example {example}.</source>
            <translation>{flag} 需要一个文件夹，例如 {example}。</translation>
        </message>
        <message>
            <source>The database is closed.</source>
            <translation>数据库已关闭。</translation>
        </message>
        <message>
            <source>The database {path} was written by a newer version of Assista (schema {schema}; this version knows up to {known}). Update Assista, or start it with another data folder. The database was not modified.</source>
            <translation>数据库 {path} 由更新版本的 Assista 写入（架构 {schema}；此版本最多支持 {known}）。请更新 Assista，或使用其他数据文件夹启动。数据库未被修改。</translation>
        </message>
        <message>
            <source>The database {path} needs an upgrade (schema {schema} to {known}) and cannot be opened read-only.</source>
            <translation>数据库 {path} 需要升级（架构 {schema} 到 {known}），无法以只读方式打开。</translation>
        </message>
        <message>
            <source>The database {path} is damaged.</source>
            <translation>数据库 {path} 已损坏。</translation>
        </message>
        <message>
            <source>The database {path} is damaged. Restart Assista to recover it.</source>
            <translation>数据库 {path} 已损坏。请重新启动 Assista 以恢复它。</translation>
        </message>
        <message>
            <source>The database {path} cannot be used. It may be damaged or not an Assista database.</source>
            <translation>无法使用数据库 {path}。它可能已损坏，或不是 Assista 数据库。</translation>
        </message>
        <message>
            <source>The database {path} is damaged and could not be moved aside; move it away yourself and start Assista again.</source>
            <translation>数据库 {path} 已损坏，且无法移到一旁；请手动将其移走，然后重新启动 Assista。</translation>
        </message>
        <message>
            <source>Cannot open the database {path}.</source>
            <translation>无法打开数据库 {path}。</translation>
        </message>
        <message>
            <source>The database {path} is open read-only (its folder cannot be written); this change was not saved.</source>
            <translation>数据库 {path} 以只读方式打开（其文件夹无法写入）；此更改未保存。</translation>
        </message>
        <message>
            <source>The database {path} cannot be written.</source>
            <translation>无法写入数据库 {path}。</translation>
        </message>
        <message>
            <source>The disk holding the database {path} is full.</source>
            <translation>存放数据库 {path} 的磁盘已满。</translation>
        </message>
        <message>
            <source>The database is busy or unavailable.</source>
            <translation>数据库繁忙或不可用。</translation>
        </message>
        <message>
            <source>The database {path} could not be read or written.</source>
            <translation>无法读取或写入数据库 {path}。</translation>
        </message>
        <message>
            <source>Cannot back up the database {path} before upgrading it. The database was not modified; free some disk space and try again.</source>
            <translation>升级前无法备份数据库 {path}。数据库未被修改；请释放一些磁盘空间后重试。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was left at version {version}.</source>
            <translation>升级数据库 {path}（迁移 {migration}）失败。数据库保持在版本 {version}。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was restored as it was (version {version}); a copy is kept in {backup}.</source>
            <translation>升级数据库 {path}（迁移 {migration}）失败。数据库已恢复原样（版本 {version}）；副本保存在 {backup}。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed, and restoring the backup also failed; your data is safe in {backup}.</source>
            <translation>升级数据库 {path}（迁移 {migration}）失败，恢复备份也失败了；您的数据安全地保存在 {backup}。</translation>
        </message>
        <message>
            <source>After the upgrade, some records of the database point to records that do not exist.</source>
            <translation>升级后，数据库中的一些记录指向不存在的记录。</translation>
        </message>
        <message>
            <source>A step of the database upgrade failed.</source>
            <translation>数据库升级的某个步骤失败。</translation>
        </message>
        <message>
            <source>Cannot open the request inspector's database {path}.</source>
            <translation>无法打开请求检查器的数据库 {path}。</translation>
        </message>
        <message>
            <source>The key file {file} cannot be read. Fix or delete it and enter the API keys again.</source>
            <translation>无法读取密钥文件 {file}。请修复或删除它，然后重新输入 API 密钥。</translation>
        </message>
        <message>
            <source>The key file {file} has an unexpected format.</source>
            <translation>密钥文件 {file} 的格式不符合预期。</translation>
        </message>
        <message>
            <source>Cannot write the key file {file}.</source>
            <translation>无法写入密钥文件 {file}。</translation>
        </message>
        <message>
            <source>The setting {key} cannot be stored.</source>
            <translation>无法存储设置 {key}。</translation>
        </message>
        <message>
            <source>The search failed.</source>
            <translation>搜索失败。</translation>
        </message>
        <message>
            <source>The answer could not be saved.</source>
            <translation>无法保存该回答。</translation>
        </message>
        <message>
            <source>{count} messages could not be saved.</source>
            <translation>有 {count} 条消息无法保存。</translation>
        </message>
        <message>
            <source>The message is empty.</source>
            <translation>消息为空。</translation>
        </message>
        <message>
            <source>That message already exists.</source>
            <translation>该消息已存在。</translation>
        </message>
        <message>
            <source>That message is not in this chat.</source>
            <translation>该消息不在此对话中。</translation>
        </message>
        <message>
            <source>The message could not be saved: it belongs to another chat.</source>
            <translation>无法保存该消息：它属于另一个对话。</translation>
        </message>
        <message>
            <source>The message could not be saved: the message it follows is not in this chat.</source>
            <translation>无法保存该消息：它所接续的消息不在此对话中。</translation>
        </message>
        <message>
            <source>That message is not on the chat's shown branch.</source>
            <translation>该消息不在对话当前显示的分支上。</translation>
        </message>
        <message>
            <source>There is no question before this message to ask again.</source>
            <translation>此消息之前没有可以重新提问的问题。</translation>
        </message>
        <message>
            <source>A chat with id {chat} already exists.</source>
            <translation>ID 为 {chat} 的对话已存在。</translation>
        </message>
        <message>
            <source>The chat could not be locked for its answer.</source>
            <translation>无法为回答锁定该对话。</translation>
        </message>
        <message>
            <source>Nothing to undo: no file written by the assistant is waiting to be undone.</source>
            <translation>没有可撤销的内容：没有等待撤销的由助手写入的文件。</translation>
        </message>
        <message>
            <source>This record has no request to replay (recorded by an older version).</source>
            <translation>此记录没有可重放的请求（由旧版本记录）。</translation>
        </message>
        <message>
            <source>Compare {minimum} to {maximum} models at once ({given} given).</source>
            <translation>一次比较 {minimum} 到 {maximum} 个模型（给出了 {given} 个）。</translation>
        </message>
        <message>
            <source>An assistant needs a name.</source>
            <translation>助手需要一个名称。</translation>
        </message>
        <message>
            <source>The temperature must be between 0 and 2.</source>
            <translation>温度必须介于 0 和 2 之间。</translation>
        </message>
        <message>
            <source>The assistant could not be saved.</source>
            <translation>无法保存该助手。</translation>
        </message>
        <message>
            <source>That assistant no longer exists.</source>
            <translation>该助手已不存在。</translation>
        </message>
        <message>
            <source>The project could not be saved.</source>
            <translation>无法保存该项目。</translation>
        </message>
        <message>
            <source>That project no longer exists.</source>
            <translation>该项目已不存在。</translation>
        </message>
        <message>
            <source>Several memories have ids starting with {id}; give more of the id.</source>
            <translation>有多条记忆的 ID 以 {id} 开头；请提供更长的 ID。</translation>
        </message>
        <message>
            <source>The system speech failed.</source>
            <translation>系统语音失败。</translation>
        </message>
        <message>
            <source>This is not an Assista export file.</source>
            <translation>这不是 Assista 导出文件。</translation>
        </message>
        <message>
            <source>This export has format version {version}, which this version of Assista cannot read; update Assista to import it.</source>
            <translation>此导出文件的格式版本为 {version}，此版本的 Assista 无法读取；请更新 Assista 后再导入。</translation>
        </message>
        <message>
            <source>A chat in the export is not readable.</source>
            <translation>导出文件中的一个对话无法读取。</translation>
        </message>
        <message>
            <source>The chat {chat} in the export is not readable.</source>
            <translation>导出文件中的对话 {chat} 无法读取。</translation>
        </message>
        <message>
            <source>Some messages of the chat {chat} already exist in another chat.</source>
            <translation>对话 {chat} 的部分消息已存在于另一个对话中。</translation>
        </message>
        <message>
            <source>The memories in the export are not readable.</source>
            <translation>导出文件中的记忆无法读取。</translation>
        </message>
        <message>
            <source>A project in the export is not readable.</source>
            <translation>导出文件中的一个项目无法读取。</translation>
        </message>
        <message>
            <source>{file} holds more than {limit} MB of chats, more than Assista imports at once; split the export or import the chats in parts.</source>
            <translation>{file} 包含超过 {limit} MB 的对话，超出 Assista 一次可导入的上限；请拆分导出文件，或分批导入对话。</translation>
        </message>
        <message>
            <source>{file} is not a file (a folder, a device or a pipe); import reads an export file.</source>
            <translation>{file} 不是文件（而是文件夹、设备或管道）；导入需要读取导出文件。</translation>
        </message>
        <message>
            <source>{file} is a damaged zip file.</source>
            <translation>{file} 是损坏的 zip 文件。</translation>
        </message>
        <message>
            <source>{file} is not a JSON file.</source>
            <translation>{file} 不是 JSON 文件。</translation>
        </message>
        <message>
            <source>{file} has no conversations.json inside.</source>
            <translation>{file} 中没有 conversations.json。</translation>
        </message>
        <message>
            <source>This file is neither an Assista export nor a ChatGPT conversations.json.</source>
            <translation>此文件既不是 Assista 导出文件，也不是 ChatGPT 的 conversations.json。</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read: a conversation in it has fields of the wrong type; nothing was imported.</source>
            <translation>无法读取 ChatGPT 导出文件：其中一个对话的字段类型不正确；未导入任何内容。</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read.</source>
            <translation>无法读取 ChatGPT 导出文件。</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>添加一个提供商即可开始对话。</translation>
        </message>
        <message>
            <source>{provider} needs an API key: add one in Providers.</source>
            <translation>{provider} 需要 API 密钥：请在“提供商”中添加。</translation>
        </message>
        <message>
            <source>{provider} uses an unsupported kind of provider ({kind}).</source>
            <translation>{provider} 使用了不受支持的提供商类型（{kind}）。</translation>
        </message>
        <message>
            <source>{provider}: the option {option} is not valid.</source>
            <translation>{provider}：选项 {option} 无效。</translation>
        </message>
        <message>
            <source>Unknown provider preset {preset} (known: {known}).</source>
            <translation>未知的提供商预设 {preset}（已知：{known}）。</translation>
        </message>
        <message>
            <source>{provider} needs a base URL (for example http://localhost:8080/v1).</source>
            <translation>{provider} 需要基础 URL（例如 http://localhost:8080/v1）。</translation>
        </message>
        <message>
            <source>The header {name} looks like a credential. Enter the API key in the provider's key field instead; it is kept in the system keyring, not in the settings.</source>
            <translation>请求头 {name} 看起来像凭据。请改为在提供商的密钥字段中输入 API 密钥；它保存在系统密钥环中，而不是设置中。</translation>
        </message>
        <message>
            <source>Unknown tools: {tools}. Available: {available}.</source>
            <translation>未知的工具：{tools}。可用：{available}。</translation>
        </message>
        <message>
            <source>{provider} has no web search of its own: choose a search service (SearXNG, Brave or Tavily) in Settings, or turn off Search the web.</source>
            <translation>{provider} 没有自带的网页搜索：请在设置中选择搜索服务（SearXNG、Brave 或 Tavily），或关闭“搜索网页”。</translation>
        </message>
        <message>
            <source>Web search via {service} needs the instance's address (Settings).</source>
            <translation>通过 {service} 进行网页搜索需要实例地址（设置）。</translation>
        </message>
        <message>
            <source>Web search via {service} needs an API key (Settings).</source>
            <translation>通过 {service} 进行网页搜索需要 API 密钥（设置）。</translation>
        </message>
        <message>
            <source>This model cannot call tools, so it cannot search the web here; pick a model with tools or turn off Search the web.</source>
            <translation>此模型无法调用工具，因此无法在此搜索网页；请选择支持工具的模型，或关闭“搜索网页”。</translation>
        </message>
        <message>
            <source>Unknown sync target {url}: use {forms}.</source>
            <translation>未知的同步目标 {url}：请使用 {forms}。</translation>
        </message>
        <message>
            <source>Set the sync passphrase in Settings → Sync.</source>
            <translation>请在“设置 → 同步”中设置同步口令。</translation>
        </message>
        <message>
            <source>The sync passphrase is empty; set one to encrypt your chats.</source>
            <translation>同步口令为空；请设置一个以加密您的对话。</translation>
        </message>
        <message>
            <source>The sync passphrase is wrong: it does not open the chats already on the target. Nothing was changed.</source>
            <translation>同步口令错误：它无法打开目标上已有的对话。未做任何更改。</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged.</source>
            <translation>同步目标上的 {file} 已损坏。</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged or was altered (it fails authentication).</source>
            <translation>同步目标上的 {file} 已损坏或被篡改（未通过验证）。</translation>
        </message>
        <message>
            <source>The sync target was set up by a newer version of Assista; update Assista.</source>
            <translation>同步目标由更新版本的 Assista 设置；请更新 Assista。</translation>
        </message>
        <message>
            <source>{file} was written by a newer version of Assista; update Assista to sync.</source>
            <translation>{file} 由更新版本的 Assista 写入；请更新 Assista 后再同步。</translation>
        </message>
        <message>
            <source>Another sync of this data folder is running; this one was skipped.</source>
            <translation>此数据文件夹的另一个同步正在运行；本次同步已跳过。</translation>
        </message>
        <message>
            <source>A change on this device is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>此设备上的一项更改大小为 {size}，超过同步目标 {target} 单次上传可接受的大小（{limit}）；它保留在此设备上。删除它，或提高服务器的上传上限，即可再次同步。</translation>
        </message>
        <message>
            <source>A message in the chat {chat} is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>对话 {chat} 中的一条消息大小为 {size}，超过同步目标 {target} 单次上传可接受的大小（{limit}）；它保留在此设备上。删除它，或提高服务器的上传上限，即可再次同步。</translation>
        </message>
        <message>
            <source>The sync target {target} does not hold {count} of the files it accepted: the server lost them. Nothing is lost here; the next sync sends them again.</source>
            <translation>同步目标 {target} 缺少它已接受的 {count} 个文件：服务器丢失了它们。此处没有丢失任何内容；下次同步会重新发送它们。</translation>
        </message>
        <message>
            <source>{file} disappeared from the sync target during the sync; nothing was changed here, the next sync will read it.</source>
            <translation>同步期间 {file} 从同步目标上消失了；此处未做任何更改，下次同步会读取它。</translation>
        </message>
        <message>
            <source>The sync target {target} lost {file}.</source>
            <translation>同步目标 {target} 丢失了 {file}。</translation>
        </message>
        <message>
            <source>The sync target {target} refused the credentials (HTTP {status}); check the user name and the password. Nothing was changed here.</source>
            <translation>同步目标 {target} 拒绝了凭据（HTTP {status}）；请检查用户名和密码。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} refused access (HTTP {status}); check the credentials and the path. Nothing was changed here.</source>
            <translation>同步目标 {target} 拒绝访问（HTTP {status}）；请检查凭据和路径。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} has no such folder or bucket (HTTP {status}). Nothing was changed here.</source>
            <translation>同步目标 {target} 没有这样的文件夹或存储桶（HTTP {status}）。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} refused a file as too large (HTTP {status}). Nothing was changed here.</source>
            <translation>同步目标 {target} 以文件过大为由拒绝了它（HTTP {status}）。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} is out of space (HTTP {status}); free some space on it. Nothing was changed here.</source>
            <translation>同步目标 {target} 空间不足（HTTP {status}）；请在其上释放一些空间。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} failed (HTTP {status}); try again later. Nothing was changed here.</source>
            <translation>同步目标 {target} 出错（HTTP {status}）；请稍后再试。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} answered HTTP {status}. Nothing was changed here.</source>
            <translation>同步目标 {target} 返回了 HTTP {status}。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} sent more than {limit}, so it was not read (the server or a proxy in between is broken). Nothing was changed here.</source>
            <translation>同步目标 {target} 发送的数据超过 {limit}，因此未读取（服务器或中间的代理有问题）。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The sync target {target} did not answer in time; your data here was not changed and the next sync will try again.</source>
            <translation>同步目标 {target} 未及时响应；此处的数据未被更改，下次同步会重试。</translation>
        </message>
        <message>
            <source>The sync target {target} cannot be reached; your data here was not changed and the next sync will try again.</source>
            <translation>无法连接同步目标 {target}；此处的数据未被更改，下次同步会重试。</translation>
        </message>
        <message>
            <source>The sync target {target} dropped the connection; your data here was not changed and the next sync will try again.</source>
            <translation>同步目标 {target} 断开了连接；此处的数据未被更改，下次同步会重试。</translation>
        </message>
        <message>
            <source>The sync target {target} failed; your data here was not changed and the next sync will try again.</source>
            <translation>同步目标 {target} 出错；此处的数据未被更改，下次同步会重试。</translation>
        </message>
        <message>
            <source>The sync folder {target} failed. Nothing was changed here.</source>
            <translation>同步文件夹 {target} 出错。此处未做任何更改。</translation>
        </message>
        <message>
            <source>A file URL names a folder on this machine by its full path: file:///path ({url}).</source>
            <translation>file URL 以完整路径指向本机上的文件夹：file:///path（{url}）。</translation>
        </message>
        <message>
            <source>{file} in the sync folder {target} is larger than {limit}: not a file Assista wrote. Nothing was changed here.</source>
            <translation>同步文件夹 {target} 中的 {file} 大于 {limit}：它不是 Assista 写入的文件。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The S3 URL {url} has no bucket: s3://bucket/prefix.</source>
            <translation>S3 URL {url} 没有存储桶：s3://bucket/prefix。</translation>
        </message>
        <message>
            <source>S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.</source>
            <translation>S3 同步需要设置 AWS_ACCESS_KEY_ID 和 AWS_SECRET_ACCESS_KEY。</translation>
        </message>
        <message>
            <source>The sync target {target} sent a list of files that cannot be read. Nothing was changed here.</source>
            <translation>同步目标 {target} 发送的文件列表无法读取。此处未做任何更改。</translation>
        </message>
        <message>
            <source>The WebDAV URL {url} has no host.</source>
            <translation>WebDAV URL {url} 没有主机。</translation>
        </message>
        <message>
            <source>Put the WebDAV password in {variable}, not in the URL.</source>
            <translation>请将 WebDAV 密码放在 {variable} 中，而不是 URL 中。</translation>
        </message>
        <message>
            <source>Cannot read {file}.</source>
            <translation>无法读取 {file}。</translation>
        </message>
        <message>
            <source>{file} is not a file.</source>
            <translation>{file} 不是文件。</translation>
        </message>
        <message>
            <source>{file} is empty.</source>
            <translation>{file} 是空的。</translation>
        </message>
        <message>
            <source>{file} is not UTF-8 text.</source>
            <translation>{file} 不是 UTF-8 文本。</translation>
        </message>
        <message>
            <source>{file} is not valid CSV.</source>
            <translation>{file} 不是有效的 CSV。</translation>
        </message>
        <message>
            <source>{file} is not a PDF (its content does not start like one: a damaged download or another kind of file).</source>
            <translation>{file} 不是 PDF（其内容的开头不像 PDF：可能是下载损坏或其他类型的文件）。</translation>
        </message>
        <message>
            <source>{file} is password-protected; open it with its password and save an unprotected copy to attach it.</source>
            <translation>{file} 受密码保护；请用密码打开它，另存一份未加密的副本后再附加。</translation>
        </message>
        <message>
            <source>{file} is too large to attach ({size} MB; the limit is {limit} MB).</source>
            <translation>{file} 太大，无法附加（{size} MB；上限为 {limit} MB）。</translation>
        </message>
        <message>
            <source>{file} is too large to read ({size}; the limit is {limit} MB).</source>
            <translation>{file} 太大，无法读取（{size}；上限为 {limit} MB）。</translation>
        </message>
        <message>
            <source>{file} unpacks to more than {limit} MB; it is not read.</source>
            <translation>{file} 解压后超过 {limit} MB；未读取。</translation>
        </message>
        <message>
            <source>{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code).</source>
            <translation>{file} 不是文本文件或受支持的文档（PDF、DOCX、XLSX、CSV、PPTX、HTML、EPUB、Markdown、源代码）。</translation>
        </message>
        <message>
            <source>{file} has no text to read.</source>
            <translation>{file} 中没有可读取的文本。</translation>
        </message>
        <message>
            <source>{file} has no text to read (scanned pages without a text layer?).</source>
            <translation>{file} 中没有可读取的文本（可能是没有文本层的扫描页面？）。</translation>
        </message>
        <message>
            <source>{file} is damaged.</source>
            <translation>{file} 已损坏。</translation>
        </message>
        <message>
            <source>{file} is damaged or not a real {kind} file.</source>
            <translation>{file} 已损坏，或不是真正的 {kind} 文件。</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>知识库需要一个名称。</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>已存在名为 {name} 的知识库。</translation>
        </message>
        <message>
            <source>There is no knowledge base named {name}.</source>
            <translation>没有名为 {name} 的知识库。</translation>
        </message>
        <message>
            <source>No such file or folder: {paths}.</source>
            <translation>没有这样的文件或文件夹：{paths}。</translation>
        </message>
        <message>
            <source>{file} is too large to index.</source>
            <translation>{file} 太大，无法编入索引。</translation>
        </message>
        <message>
            <source>{file} is a link to nothing.</source>
            <translation>{file} 是一个指向不存在目标的链接。</translation>
        </message>
        <message>
            <source>{file} is a link out of the folder (links are followed only inside it).</source>
            <translation>{file} 是指向文件夹之外的链接（只跟随文件夹内的链接）。</translation>
        </message>
        <message>
            <source>There is no embedding API {kind}.</source>
            <translation>没有嵌入 API {kind}。</translation>
        </message>
        <message>
            <source>Providers of the kind {kind} cannot make embeddings.</source>
            <translation>{kind} 类型的提供商无法生成嵌入。</translation>
        </message>
        <message>
            <source>The embedding request failed.</source>
            <translation>嵌入请求失败。</translation>
        </message>
        <message>
            <source>The embedding model {model} at {url} cannot be used; nothing was changed.</source>
            <translation>位于 {url} 的嵌入模型 {model} 无法使用；未做任何更改。</translation>
        </message>
        <message>
            <source>No MCP servers are running.</source>
            <translation>没有正在运行的 MCP 服务器。</translation>
        </message>
        <message>
            <source>There is no MCP server named {name}.</source>
            <translation>没有名为 {name} 的 MCP 服务器。</translation>
        </message>
        <message>
            <source>There is already an MCP server named {name}.</source>
            <translation>已存在名为 {name} 的 MCP 服务器。</translation>
        </message>
        <message>
            <source>The prompt {prompt} needs {names}.</source>
            <translation>提示 {prompt} 需要 {names}。</translation>
        </message>
        <message>
            <source>These values are required: {names}.</source>
            <translation>以下值为必填项：{names}。</translation>
        </message>
        <message>
            <source>The MCP registry could not be read and there is no saved copy yet.</source>
            <translation>无法读取 MCP 注册表，且尚无已保存的副本。</translation>
        </message>
        <message>
            <source>The MCP configuration is not valid JSON (line {line}).</source>
            <translation>MCP 配置不是有效的 JSON（第 {line} 行）。</translation>
        </message>
        <message>
            <source>Cannot read the MCP configuration {file}.</source>
            <translation>无法读取 MCP 配置 {file}。</translation>
        </message>
        <message>
            <source>The MCP configuration must be a JSON object with an mcpServers key.</source>
            <translation>MCP 配置必须是带有 mcpServers 键的 JSON 对象。</translation>
        </message>
        <message>
            <source>The MCP configuration holds a single server without a name: put it under mcpServers, with its name as the key.</source>
            <translation>MCP 配置中有一个没有名称的服务器：请将其放在 mcpServers 下，并以其名称作为键。</translation>
        </message>
        <message>
            <source>mcpServers must map server names to their settings.</source>
            <translation>mcpServers 必须将服务器名称映射到其设置。</translation>
        </message>
        <message>
            <source>The MCP configuration lists no servers.</source>
            <translation>MCP 配置中没有列出任何服务器。</translation>
        </message>
        <message>
            <source>MCP server {server}: its settings must be a JSON object.</source>
            <translation>MCP 服务器 {server}：其设置必须是 JSON 对象。</translation>
        </message>
        <message>
            <source>MCP server {server}: {key} must be an object of strings.</source>
            <translation>MCP 服务器 {server}：{key} 必须是由字符串组成的对象。</translation>
        </message>
        <message>
            <source>MCP server {server}: unknown transport {transport}.</source>
            <translation>MCP 服务器 {server}：未知的传输方式 {transport}。</translation>
        </message>
        <message>
            <source>The settings of MCP server {server} are not valid.</source>
            <translation>MCP 服务器 {server} 的设置无效。</translation>
        </message>
    </context>
    <context>
        <name>ExchangeView</name>
        <message>
            <source>Find in the request</source>
            <translation>在请求中查找</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>请求</translation>
        </message>
        <message>
            <source>Find in the response</source>
            <translation>在响应中查找</translation>
        </message>
        <message>
            <source>Response</source>
            <translation>响应</translation>
        </message>
        <message>
            <source>Find in this event</source>
            <translation>在此事件中查找</translation>
        </message>
        <message>
            <source>Event</source>
            <translation>事件</translation>
        </message>
        <message>
            <source>Events (%1)</source>
            <translation>事件（%1）</translation>
        </message>
        <message>
            <source>Raw bytes (%1)</source>
            <translation>原始字节 (%1)</translation>
        </message>
        <message>
            <source>Timings</source>
            <translation>耗时</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>回放</translation>
        </message>
        <message>
            <source>Stream events</source>
            <translation>流事件</translation>
        </message>
        <message>
            <source>Arrived</source>
            <translation>到达</translation>
        </message>
        <message>
            <source>Bytes</source>
            <translation>字节</translation>
        </message>
        <message>
            <source>Raw bytes received</source>
            <translation>收到的原始字节</translation>
        </message>
        <message>
            <source>Find in these bytes</source>
            <translation>在这些字节中查找</translation>
        </message>
        <message>
            <source>Raw bytes</source>
            <translation>原始字节</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>数据</translation>
        </message>
        <message>
            <source>%1 (counted from the events)</source>
            <translation>%1（根据事件统计）</translation>
        </message>
        <message>
            <source>Time to headers</source>
            <translation>响应头用时</translation>
        </message>
        <message>
            <source>Time to first token</source>
            <translation>首个令牌用时</translation>
        </message>
        <message>
            <source>Time to last token</source>
            <translation>末个令牌用时</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>总计</translation>
        </message>
        <message>
            <source>Output tokens</source>
            <translation>输出令牌</translation>
        </message>
        <message>
            <source>Tokens per second</source>
            <translation>每秒令牌数</translation>
        </message>
        <message>
            <source>Retries</source>
            <translation>重试</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>Find in this chat</source>
            <translation>在此聊天中查找</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>上一个匹配项 (Shift+Enter)</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>上一个匹配项</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>下一个匹配项 (Enter)</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>下一个匹配项</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>关闭 (Esc)</translation>
        </message>
        <message>
            <source>Close the find bar</source>
            <translation>关闭查找栏</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>无匹配项</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n 个匹配项</numerusform>
            </translation>
        </message>
        <message>
            <source>{current} of {total}</source>
            <translation>第 {current} 个，共 {total} 个</translation>
        </message>
    </context>
    <context>
        <name>FindableText</name>
        <message>
            <source>Find</source>
            <translation>查找</translation>
        </message>
        <message numerus="yes">
            <source>%n found</source>
            <translation>
                <numerusform>找到 %n 个</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>GlobalShortcut</name>
        <message>
            <source>Open the Assista quick-ask window</source>
            <translation>打开 Assista 快速提问窗口</translation>
        </message>
        <message>
            <source>Registered with the desktop as {trigger}.</source>
            <translation>已在桌面注册为 {trigger}。</translation>
        </message>
        <message>
            <source>Registered: {shortcut} opens quick ask from any application.</source>
            <translation>已注册：{shortcut} 可在任何应用中打开快速提问。</translation>
        </message>
        <message>
            <source>Waiting for the desktop to confirm the shortcut…</source>
            <translation>正在等待桌面确认快捷键…</translation>
        </message>
        <message>
            <source>{shortcut} is taken by another program: choose another combination.</source>
            <translation>{shortcut} 已被其他程序占用：请选择其他组合键。</translation>
        </message>
        <message>
            <source>The desktop did not allow the shortcut. Choose it again, or bind the command “assista quick --selection” in the desktop's keyboard settings.</source>
            <translation>桌面未允许此快捷键。请重新选择，或在桌面的键盘设置中绑定命令“assista quick --selection”。</translation>
        </message>
        <message>
            <source>Not available on this desktop: bind the command “assista quick --selection” to a shortcut in the desktop's keyboard settings.</source>
            <translation>此桌面不支持：请在桌面的键盘设置中为命令“assista quick --selection”绑定快捷键。</translation>
        </message>
        <message>
            <source>No global shortcut. The command “assista quick --selection” can be bound to one in the desktop's keyboard settings.</source>
            <translation>没有全局快捷键。可以在桌面的键盘设置中为命令“assista quick --selection”绑定一个。</translation>
        </message>
        <message>
            <source>A global shortcut needs Ctrl, Alt or Meta with the key: on its own the key could not be typed anywhere else.</source>
            <translation>全局快捷键需要在按键之外加上 Ctrl、Alt 或 Meta：单独一个键会让它在其他地方无法输入。</translation>
        </message>
        <message>
            <source>This key cannot be part of a global shortcut: choose a letter, digit, function key, Space or an arrow key.</source>
            <translation>此键不能用于全局快捷键：请选择字母、数字、功能键、空格键或方向键。</translation>
        </message>
        <message>
            <source>A global shortcut is one key with Ctrl, Alt or Meta, not a sequence of keys.</source>
            <translation>全局快捷键是一个键加上 Ctrl、Alt 或 Meta，而不是一串按键。</translation>
        </message>
    </context>
    <context>
        <name>HitDelegate</name>
        <message>
            <source>You</source>
            <translation>你</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>Tool result</source>
            <translation>工具结果</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>archived</source>
            <translation>已归档</translation>
        </message>
    </context>
    <context>
        <name>ImportExport</name>
        <message>
            <source>Open a chat to export it (or use Export all chats…).</source>
            <translation>请先打开要导出的聊天（或使用“导出全部聊天…”）。</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>导出聊天</translation>
        </message>
        <message>
            <source>Export all chats</source>
            <translation>导出全部聊天</translation>
        </message>
        <message>
            <source>Import chats</source>
            <translation>导入聊天</translation>
        </message>
        <message>
            <source>all chats</source>
            <translation>全部聊天</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n 个聊天</numerusform>
            </translation>
        </message>
        <message>
            <source>Export to {file} failed: {error}</source>
            <translation>导出到 {file} 失败：{error}</translation>
        </message>
        <message>
            <source>Exported {what} as {format} to {file} ({size} bytes).</source>
            <translation>已将{what}以 {format} 格式导出到 {file}（{size} 字节）。</translation>
        </message>
        <message>
            <source>Import of {file} failed: {error}</source>
            <translation>导入 {file} 失败：{error}</translation>
        </message>
        <message>
            <source>Import finished</source>
            <translation>导入完成</translation>
        </message>
    </context>
    <context>
        <name>InspectorPanel</name>
        <message>
            <source>HTTP status: %1</source>
            <translation>HTTP 状态：%1</translation>
        </message>
        <message>
            <source>Retries:</source>
            <translation>重试：</translation>
        </message>
        <message>
            <source>  attempt %1 at %2, waited %3 s: %4</source>
            <translation>  第 %1 次尝试，时间 %2，等待 %3 秒：%4</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>错误：%1</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>请求检查器</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>请求</translation>
        </message>
        <message>
            <source>Request %1 of %2: %3 · %4 · HTTP %5</source>
            <translation>请求 %1/%2：%3 · %4 · HTTP %5</translation>
        </message>
        <message>
            <source>Copy as curl</source>
            <translation>复制为 curl</translation>
        </message>
        <message>
            <source>The request as a curl command; the key is an environment variable, never the key itself</source>
            <translation>以 curl 命令表示的请求；密钥以环境变量表示，绝不包含密钥本身</translation>
        </message>
        <message>
            <source>Copy as JSON</source>
            <translation>复制为 JSON</translation>
        </message>
        <message>
            <source>Everything recorded for this request, redacted</source>
            <translation>此请求记录的全部内容（已脱敏）</translation>
        </message>
        <message>
            <source>%1 · %2 · HTTP %3 · %4</source>
            <translation>%1 · %2 · HTTP %3 · %4</translation>
        </message>
        <message>
            <source>Copied the curl command.</source>
            <translation>已复制 curl 命令。</translation>
        </message>
        <message>
            <source>Copied the record as JSON.</source>
            <translation>已将记录复制为 JSON。</translation>
        </message>
    </context>
    <context>
        <name>InspectorSettings</name>
        <message>
            <source>Record every request sent to a model</source>
            <translation>记录发送给模型的每个请求</translation>
        </message>
        <message>
            <source>What was sent (keys and tokens hidden), what came back and the timings, for Inspect on each answer and assista inspect</source>
            <translation>发送的内容（隐藏密钥和令牌）、返回的内容及耗时，供每个回答的“检查”和 assista inspect 使用</translation>
        </message>
        <message>
            <source>Recording</source>
            <translation>记录</translation>
        </message>
        <message>
            <source> days</source>
            <translation> 天</translation>
        </message>
        <message>
            <source>Keep recorded requests for</source>
            <translation>已记录请求的保留时间</translation>
        </message>
        <message>
            <source>Keep for</source>
            <translation>保留时间</translation>
        </message>
        <message>
            <source> MB</source>
            <translation> MB</translation>
        </message>
        <message>
            <source>Largest size of the recorded requests</source>
            <translation>已记录请求的最大总大小</translation>
        </message>
        <message>
            <source>At most</source>
            <translation>最多</translation>
        </message>
        <message>
            <source>The oldest requests are deleted first, when the app starts and after each answer. They are kept in inspector.sqlite in the data folder, apart from the chats (not synced).</source>
            <translation>最早的请求会先被删除，时机为应用启动时和每次回答之后。它们保存在数据文件夹的 inspector.sqlite 中，与聊天分开（不同步）。</translation>
        </message>
        <message>
            <source>Delete all recorded requests</source>
            <translation>删除所有已记录的请求</translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n recorded requests.</source>
            <translation>
                <numerusform>已删除 %n 个已记录的请求。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDetail</name>
        <message>
            <source>Folders and files of the knowledge base</source>
            <translation>知识库的文件夹和文件</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>添加文件…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Stop indexing the selected folder or file</source>
            <translation>停止索引所选文件夹或文件</translation>
        </message>
        <message>
            <source>Embedding provider</source>
            <translation>嵌入提供商</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>嵌入模型</translation>
        </message>
        <message>
            <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
            <translation>例如：text-embedding-3-small、nomic-embed-text、gemini-embedding-001</translation>
        </message>
        <message>
            <source>Search it in the open chat</source>
            <translation>在当前聊天中搜索它</translation>
        </message>
        <message>
            <source>Assistants…</source>
            <translation>助手…</translation>
        </message>
        <message>
            <source>Every chat with a checked assistant searches this knowledge base</source>
            <translation>使用已勾选助手的每个聊天都会搜索此知识库</translation>
        </message>
        <message>
            <source>Embeddings</source>
            <translation>嵌入</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Used by</source>
            <translation>使用者</translation>
        </message>
        <message>
            <source>Folders and files</source>
            <translation>文件夹和文件</translation>
        </message>
        <message>
            <source>Index now</source>
            <translation>立即索引</translation>
        </message>
        <message>
            <source>Indexing progress</source>
            <translation>索引进度</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Cancel indexing</source>
            <translation>取消索引</translation>
        </message>
        <message>
            <source>No knowledge base yet</source>
            <translation>还没有知识库</translation>
        </message>
        <message>
            <source>Full text only</source>
            <translation>仅全文</translation>
        </message>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n 个文件</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passages</source>
            <translation>
                <numerusform>%n 个段落</numerusform>
            </translation>
        </message>
        <message>
            <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds} s</source>
            <translation>新增 {added}，更改 {updated}，移除 {removed}，未变 {unchanged}，用时 {seconds} 秒</translation>
        </message>
        <message numerus="yes">
            <source>%n files could not be read: </source>
            <translation>
                <numerusform>%n 个文件无法读取：</numerusform>
            </translation>
        </message>
        <message>
            <source>{files}, {chunks}; not indexed yet</source>
            <translation>{files}，{chunks}；尚未索引</translation>
        </message>
        <message>
            <source>{files}, {chunks}; indexed {when}</source>
            <translation>{files}，{chunks}；索引于 {when}</translation>
        </message>
        <message>
            <source>No assistants yet</source>
            <translation>还没有助手</translation>
        </message>
        <message>
            <source>Looking for files…</source>
            <translation>正在查找文件…</translation>
        </message>
        <message>
            <source>Computing embeddings…</source>
            <translation>正在计算嵌入…</translation>
        </message>
        <message>
            <source>{done} of {total}: {path}</source>
            <translation>{done}/{total}：{path}</translation>
        </message>
        <message>
            <source>Indexing failed: {error}</source>
            <translation>索引失败：{error}</translation>
        </message>
        <message>
            <source>; {n} passages embedded</source>
            <translation>；已嵌入 {n} 个段落</translation>
        </message>
        <message>
            <source> (cancelled: what was done is kept)</source>
            <translation>（已取消：已完成的部分会保留）</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>添加文件夹</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>添加文件</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDialog</name>
        <message>
            <source>Knowledge</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>New…</source>
            <translation>新建…</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>重命名…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>New knowledge base</source>
            <translation>新建知识库</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>名称：</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>已存在名为 {name} 的知识库。</translation>
        </message>
        <message>
            <source>Rename knowledge base</source>
            <translation>重命名知识库</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>删除知识库</translation>
        </message>
        <message>
            <source>Delete {name} and its index? Your files are not touched.</source>
            <translation>删除 {name} 及其索引？你的文件不会受影响。</translation>
        </message>
    </context>
    <context>
        <name>LanguageChoice</name>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>A new language shows after the app is restarted.</source>
            <translation>新语言将在应用重启后生效。</translation>
        </message>
    </context>
    <context>
        <name>Languages</name>
        <message>
            <source>System default</source>
            <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
            <translation>系统默认</translation>
        </message>
    </context>
    <context>
        <name>Launch</name>
        <message>
            <source> and </source>
            <translation>和</translation>
        </message>
        <message>
            <source>Found {servers} running on this computer</source>
            <translation>发现本机正在运行 {servers}</translation>
        </message>
        <message>
            <source>{app} could not open its data folder:

{error}</source>
            <translation>{app} 无法打开其数据文件夹：

{error}</translation>
        </message>
        <message>
            <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
            <translation>{app} 已在使用 {folder} 中的数据运行。请先关闭它，或使用 --data-dir 启动。</translation>
        </message>
        <message>
            <source>{app} could not open its data:

{error}</source>
            <translation>{app} 无法打开其数据：

{error}</translation>
        </message>
    </context>
    <context>
        <name>LocaleFormat</name>
        <message>
            <source>{number}k</source>
            <translation>{number}k</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Opening…</source>
            <translation>正在打开…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <extracomment>The menus in order (the skeleton shows them disabled until the real ones replace them)</extracomment>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>新建聊天(&amp;N)</translation>
        </message>
        <message>
            <source>New t&amp;emporary chat</source>
            <translation>新建临时聊天(&amp;E)</translation>
        </message>
        <message>
            <source>Choose &amp;workspace folder…</source>
            <translation>选择工作区文件夹(&amp;W)…</translation>
        </message>
        <message>
            <source>Install &amp;extension…</source>
            <translation>安装扩展(&amp;E)…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Settings</source>
            <translation>设置(&amp;S)</translation>
        </message>
        <message>
            <source>P&amp;references…</source>
            <translation>偏好设置(&amp;R)…</translation>
        </message>
        <message>
            <source>&amp;Providers…</source>
            <translation>提供商(&amp;P)…</translation>
        </message>
        <message>
            <source>Model p&amp;rices…</source>
            <translation>模型价格(&amp;R)…</translation>
        </message>
        <message>
            <source>&amp;Tools…</source>
            <translation>工具(&amp;T)…</translation>
        </message>
        <message>
            <source>&amp;MCP servers…</source>
            <translation>MCP 服务器(&amp;M)…</translation>
        </message>
        <message>
            <source>&amp;Knowledge…</source>
            <translation>知识库(&amp;K)…</translation>
        </message>
        <message>
            <source>S&amp;ync…</source>
            <translation>同步(&amp;Y)…</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>Toggle &amp;tool activity</source>
            <translation>切换工具活动(&amp;T)</translation>
        </message>
        <message>
            <source>Show &amp;chat list</source>
            <translation>显示聊天列表(&amp;C)</translation>
        </message>
        <message>
            <source>Focus &amp;message box</source>
            <translation>聚焦消息框(&amp;M)</translation>
        </message>
        <message>
            <source>Go to pending &amp;approval</source>
            <translation>转到待批准项(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>键盘快捷键(&amp;K)</translation>
        </message>
        <message>
            <source>Open &amp;log folder</source>
            <translation>打开日志文件夹(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>关于(&amp;A)</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>已在工具轮次上限处停止</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>添加一个提供商即可开始聊天。</translation>
        </message>
        <message>
            <source>Preferences saved</source>
            <translation>偏好设置已保存</translation>
        </message>
        <message>
            <source>Choose workspace folder</source>
            <translation>选择工作区文件夹</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>安装扩展</translation>
        </message>
        <message>
            <source>MCP bundles (*.mcpb *.dxt)</source>
            <translation>MCP 包 (*.mcpb *.dxt)</translation>
        </message>
    </context>
    <context>
        <name>McpAttachMenu</name>
        <message>
            <source>Files…</source>
            <translation>文件…</translation>
        </message>
        <message>
            <source>From MCP server…</source>
            <translation>从 MCP 服务器…</translation>
        </message>
        <message>
            <source>Read again from {0}: the server changed it</source>
            <translation>已从 {0} 重新读取：服务器已更改它</translation>
        </message>
    </context>
    <context>
        <name>McpCatalogDialog</name>
        <message>
            <source>MCP server catalog</source>
            <translation>MCP 服务器目录</translation>
        </message>
        <message>
            <source>Search servers</source>
            <translation>搜索服务器</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>刷新</translation>
        </message>
        <message>
            <source>Read the registry again</source>
            <translation>重新读取注册表</translation>
        </message>
        <message>
            <source>Servers in the catalog</source>
            <translation>目录中的服务器</translation>
        </message>
        <message>
            <source>How to install</source>
            <translation>安装方式</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>添加服务器</translation>
        </message>
        <message>
            <source>Showing the saved copy; reading the registry…</source>
            <translation>正在显示保存的副本；正在读取注册表…</translation>
        </message>
        <message>
            <source>Reading the MCP registry…</source>
            <translation>正在读取 MCP 注册表…</translation>
        </message>
        <message>
            <source>Offline ({0}): showing the copy saved on {1}.</source>
            <translation>离线（{0}）：显示 {1} 保存的副本。</translation>
        </message>
        <message numerus="yes">
            <source>%n server(s)</source>
            <translation>
                <numerusform>%n 个服务器</numerusform>
            </translation>
        </message>
        <message>
            <source>Choose a server</source>
            <translation>选择服务器</translation>
        </message>
        <message>
            <source>This server has no package or address the app can install (for example a container image).</source>
            <translation>此服务器没有应用可以安装的包或地址（例如容器镜像）。</translation>
        </message>
        <message>
            <source>Cannot add it: {0}</source>
            <translation>无法添加：{0}</translation>
        </message>
    </context>
    <context>
        <name>McpClientFields</name>
        <message>
            <source>only if its sign-in asks for an app registered by hand</source>
            <translation>仅当其登录要求手动注册的应用时</translation>
        </message>
        <message>
            <source>stored in the keyring; type to replace it</source>
            <translation>已保存在密钥环中；输入可替换</translation>
        </message>
        <message>
            <source>optional; kept in the keyring</source>
            <translation>可选；保存在密钥环中</translation>
        </message>
        <message>
            <source>any free port</source>
            <translation>任意空闲端口</translation>
        </message>
        <message>
            <source>The port of the redirect URL registered with the app, if its sign-in wants an exact one</source>
            <translation>应用注册的重定向 URL 的端口（如果登录需要指定端口）</translation>
        </message>
        <message>
            <source>Client &amp;ID</source>
            <translation>客户端 ID(&amp;I)</translation>
        </message>
        <message>
            <source>Client s&amp;ecret</source>
            <translation>客户端密钥(&amp;E)</translation>
        </message>
        <message>
            <source>Callback &amp;port</source>
            <translation>回调端口(&amp;P)</translation>
        </message>
        <message>
            <source>Redirect URL to register:
{address}</source>
            <translation>需要注册的重定向 URL：
{address}</translation>
        </message>
    </context>
    <context>
        <name>McpDialog</name>
        <message>
            <source>MCP servers</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
            <translation>还没有 MCP 服务器。添加一个（例如命令“npx -y @modelcontextprotocol/server-filesystem ~/notes”或一个 URL），或导入你的 Claude Desktop 配置。</translation>
        </message>
        <message>
            <source>Save and start</source>
            <translation>保存并启动</translation>
        </message>
        <message>
            <source>Save the servers and (re)start them</source>
            <translation>保存服务器并（重新）启动</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>添加</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>导入</translation>
        </message>
        <message>
            <source>From a file…</source>
            <translation>从文件…</translation>
        </message>
        <message>
            <source>Paste JSON…</source>
            <translation>粘贴 JSON…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>new — say how to reach it, then Save</source>
            <translation>新建 — 填写连接方式后保存</translation>
        </message>
        <message>
            <source>switched off</source>
            <translation>已关闭</translation>
        </message>
        <message>
            <source>not started — Save to start it</source>
            <translation>未启动 — 保存后启动</translation>
        </message>
        <message>
            <source>failed: {error}</source>
            <translation>失败：{error}</translation>
        </message>
        <message>
            <source>no reason given</source>
            <translation>未说明原因</translation>
        </message>
        <message>
            <source>starting…</source>
            <translation>正在启动…</translation>
        </message>
        <message>
            <source>restarting…</source>
            <translation>正在重启…</translation>
        </message>
        <message>
            <source> (last error: {error})</source>
            <translation>（上次错误：{error}）</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source> · changes not applied yet (Save)</source>
            <translation> · 更改尚未应用（保存）</translation>
        </message>
        <message>
            <source>(no name)</source>
            <translation>（无名称）</translation>
        </message>
        <message>
            <source>Remove MCP server</source>
            <translation>移除 MCP 服务器</translation>
        </message>
        <message>
            <source>Remove {name}? Its tools leave every chat, and its stored keys and sign-in are deleted, when you Save.</source>
            <translation>移除 {name}？保存后其工具会从所有聊天中移除，其保存的密钥和登录信息也会被删除。</translation>
        </message>
        <message>
            <source>Removed {name}. Save to stop it.</source>
            <translation>已移除 {name}。保存后即会停止。</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>导入 MCP 服务器</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>JSON 文件 (*.json);;所有文件 (*)</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n servers: {names}. Save to start them.</source>
            <translation>
                <numerusform>已导入 %n 个服务器：{names}。保存后即会启动。</numerusform>
            </translation>
        </message>
        <message>
            <source>There are two servers named {name}; rename one.</source>
            <translation>有两个服务器都叫 {name}；请重命名其中一个。</translation>
        </message>
        <message>
            <source>Saved. Starting the servers…</source>
            <translation>已保存。正在启动服务器…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>{name} is not started: Save to start it.</source>
            <translation>{name} 未启动：保存后即会启动。</translation>
        </message>
        <message>
            <source>This server</source>
            <translation>此服务器</translation>
        </message>
        <message>
            <source>Restarting {name}…</source>
            <translation>正在重启 {name}…</translation>
        </message>
        <message>
            <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
            <translation>有未保存的更改：请保存，或再次点击“关闭”以放弃更改。</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>浏览</translation>
        </message>
        <message>
            <source>Servers listed in the official MCP registry</source>
            <translation>官方 MCP 注册表中列出的服务器</translation>
        </message>
    </context>
    <context>
        <name>McpResourceDialog</name>
        <message>
            <source>Attach from an MCP server</source>
            <translation>从 MCP 服务器附加</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>资源</translation>
        </message>
        <message>
            <source>Attach</source>
            <translation>附加</translation>
        </message>
        <message>
            <source>No running MCP server offers resources.</source>
            <translation>没有正在运行的 MCP 服务器提供资源。</translation>
        </message>
        <message>
            <source>Reading {0}…</source>
            <translation>正在读取 {0}…</translation>
        </message>
        <message>
            <source>Cannot attach {0}: {1}</source>
            <translation>无法附加 {0}：{1}</translation>
        </message>
    </context>
    <context>
        <name>McpServerForm</name>
        <message>
            <source>Command (stdio)</source>
            <translation>命令 (stdio)</translation>
        </message>
        <message>
            <source>URL (Streamable HTTP)</source>
            <translation>URL（Streamable HTTP）</translation>
        </message>
        <message>
            <source>URL (SSE, legacy)</source>
            <translation>URL（SSE，旧版）</translation>
        </message>
        <message>
            <source>line {number}: write it as {example}</source>
            <translation>第 {number} 行：请写成 {example}</translation>
        </message>
        <message>
            <source>Shown in lists; also the prefix of its tools' names</source>
            <translation>显示在列表中；也是其工具名称的前缀</translation>
        </message>
        <message>
            <source>Start this server</source>
            <translation>启动此服务器</translation>
        </message>
        <message>
            <source>npx, uvx, python, /path/to/server…</source>
            <translation>npx、uvx、python、/path/to/server…</translation>
        </message>
        <message>
            <source>-y @modelcontextprotocol/server-filesystem "~/My notes"</source>
            <translation>-y @modelcontextprotocol/server-filesystem "~/我的笔记"</translation>
        </message>
        <message>
            <source>KEY=value, one per line</source>
            <translation>KEY=value，每行一个</translation>
        </message>
        <message>
            <source>working folder (optional)</source>
            <translation>工作文件夹（可选）</translation>
        </message>
        <message>
            <source>https://example.com/mcp</source>
            <translation>https://example.com/mcp</translation>
        </message>
        <message>
            <source>Authorization: Bearer …, one per line</source>
            <translation>Authorization: Bearer …，每行一个</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>名称(&amp;N)</translation>
        </message>
        <message>
            <source>&amp;Connect with</source>
            <translation>连接方式(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>命令(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Arguments</source>
            <translation>参数(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Environment</source>
            <translation>环境变量(&amp;E)</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>文件夹(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;URL</source>
            <translation>URL(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Headers</source>
            <translation>请求头(&amp;H)</translation>
        </message>
        <message>
            <source>Sign-in app</source>
            <translation>登录应用</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>服务器 stderr</translation>
        </message>
        <message>
            <source>Server status</source>
            <translation>服务器状态</translation>
        </message>
        <message>
            <source>Restart</source>
            <translation>重启</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>显示 stderr</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>On</source>
            <translation>开启</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>Tools of this server</source>
            <translation>此服务器的工具</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>请求头</translation>
        </message>
        <message>
            <source>Arguments: a quotation mark is not closed, or the text ends with a backslash.</source>
            <translation>参数：有未闭合的引号，或文本以反斜杠结尾。</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>{tool} 的策略</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>默认（{policy}）</translation>
        </message>
        <message>
            <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
            <translation>设置 → 工具 已将此工具设为 {policy}，其优先于此处的选择</translation>
        </message>
        <message>
            <source>Sign in to use its tools.</source>
            <translation>登录后即可使用其工具。</translation>
        </message>
        <message>
            <source>Its tools are listed here once it runs.</source>
            <translation>运行后会在此列出其工具。</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>隐藏 stderr</translation>
        </message>
        <message>
            <source>(the server is not started)</source>
            <translation>（服务器未启动）</translation>
        </message>
        <message>
            <source>(nothing written yet)</source>
            <translation>（尚无输出）</translation>
        </message>
    </context>
    <context>
        <name>McpSignInRow</name>
        <message>
            <source>Sign-in status</source>
            <translation>登录状态</translation>
        </message>
        <message>
            <source>Sign in</source>
            <translation>登录</translation>
        </message>
        <message>
            <source>Sign in to this server in your browser</source>
            <translation>在浏览器中登录此服务器</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>退出登录</translation>
        </message>
        <message>
            <source>Forget this server's sign-in</source>
            <translation>忘记此服务器的登录信息</translation>
        </message>
        <message>
            <source>Cancel sign-in</source>
            <translation>取消登录</translation>
        </message>
        <message>
            <source>Stop waiting for the browser</source>
            <translation>停止等待浏览器</translation>
        </message>
        <message>
            <source>Signing out…</source>
            <translation>正在退出登录…</translation>
        </message>
        <message>
            <source>Waiting for you to finish signing in in the browser…</source>
            <translation>正在等待你在浏览器中完成登录…</translation>
        </message>
        <message>
            <source>This server needs you to sign in.</source>
            <translation>此服务器需要你登录。</translation>
        </message>
        <message>
            <source>Signed in.</source>
            <translation>已登录。</translation>
        </message>
        <message>
            <source>No sign-in used.</source>
            <translation>未使用登录。</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotices</name>
        <message>
            <source>Memory removed: {fact}</source>
            <translation>已删除记忆：{fact}</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Memory saved: {fact}</source>
            <translation>已保存记忆：{fact}</translation>
        </message>
    </context>
    <context>
        <name>MemoryPage</name>
        <message>
            <source>Remember facts about me across chats</source>
            <translation>跨聊天记住关于我的事实</translation>
        </message>
        <message>
            <source>Off: memory is paused; no memory is sent to the model and none is saved</source>
            <translation>关闭：记忆已暂停；不会向模型发送任何记忆，也不会保存新的记忆</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>记忆</translation>
        </message>
        <message>
            <source>When the assistant wants to remember something</source>
            <translation>当助手想要记住某件事时</translation>
        </message>
        <message>
            <source>Ask me first</source>
            <translation>先询问我</translation>
        </message>
        <message>
            <source>Save without asking</source>
            <translation>直接保存，不询问</translation>
        </message>
        <message>
            <source>New memories</source>
            <translation>新记忆</translation>
        </message>
        <message>
            <source>Say “remember that…” in a chat, or the assistant may propose a memory. Memories stay on this computer; they are in exports and sync (encrypted), and are sent only in the system prompt of your chats. Temporary chats use none.</source>
            <translation>在聊天中说“记住……”，或由助手提议一条记忆。记忆保存在这台电脑上；它们包含在导出和同步（加密）中，只会在你的聊天的系统提示中发送。临时聊天不使用记忆。</translation>
        </message>
        <message>
            <source>Search memories…</source>
            <translation>搜索记忆…</translation>
        </message>
        <message>
            <source>Search memories</source>
            <translation>搜索记忆</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>记忆</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>编辑…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Delete all…</source>
            <translation>全部删除…</translation>
        </message>
        <message>
            <source>In a project only</source>
            <translation>仅在一个项目中</translation>
        </message>
        <message>
            <source>In every chat</source>
            <translation>在所有聊天中</translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n 条记忆</numerusform>
            </translation>
        </message>
        <message>
            <source>No memory matches the search.</source>
            <translation>没有与搜索匹配的记忆。</translation>
        </message>
        <message>
            <source>No memories yet.</source>
            <translation>还没有记忆。</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>编辑记忆</translation>
        </message>
        <message>
            <source>What the assistant remembers:</source>
            <translation>助手记住的内容：</translation>
        </message>
        <message>
            <source>Delete all memories</source>
            <translation>删除所有记忆</translation>
        </message>
        <message>
            <source>Delete every memory? The assistant forgets all it knows about you; this cannot be undone.</source>
            <translation>删除所有记忆？助手会忘记关于你的一切；此操作无法撤销。</translation>
        </message>
        <message>
            <source>Delete all</source>
            <translation>全部删除</translation>
        </message>
    </context>
    <context>
        <name>MessageAccessibility</name>
        <message>
            <source>Code block, {language}</source>
            <translation>代码块，{language}</translation>
        </message>
        <message>
            <source>plain text</source>
            <translation>纯文本</translation>
        </message>
        <message>
            <source>Equation</source>
            <translation>公式</translation>
        </message>
        <message>
            <source>Quote</source>
            <translation>引用</translation>
        </message>
        <message>
            <source>Table, {rows} rows, {columns} columns</source>
            <translation>表格，{rows} 行 {columns} 列</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>你的消息</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Being written</source>
            <translation>正在撰写</translation>
        </message>
    </context>
    <context>
        <name>MessageHeader</name>
        <message>
            <source>Copy</source>
            <extracomment>Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.</extracomment>
            <translation>复制</translation>
        </message>
        <message>
            <source>Copy this message as Markdown (the arrow has more)</source>
            <translation>将此消息复制为 Markdown（箭头中有更多选项）</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>复制消息</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>更多操作</translation>
        </message>
        <message>
            <source>More: continue, fork into a new chat, delete</source>
            <translation>更多：继续、分支为新聊天、删除</translation>
        </message>
        <message>
            <source>Continue this answer</source>
            <translation>继续此回答</translation>
        </message>
        <message>
            <source>Fork into a new chat from here</source>
            <translation>从这里分支为新聊天</translation>
        </message>
        <message>
            <source>Ask other models…</source>
            <translation>询问其他模型…</translation>
        </message>
        <message>
            <source>Delete this and what follows…</source>
            <translation>删除此消息及其后内容…</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>朗读</translation>
        </message>
        <message>
            <source>Preview this page…</source>
            <translation>预览此页面…</translation>
        </message>
        <message>
            <source>Opens in your browser: this runs the model's code, with every network request blocked</source>
            <translation>在浏览器中打开：这会运行模型的代码，所有网络请求均被阻止</translation>
        </message>
        <message>
            <source>Inspect the request…</source>
            <translation>检查请求…</translation>
        </message>
        <message>
            <source>What was sent, what came back, timings, Replay</source>
            <translation>发送的内容、返回的内容、耗时、回放</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Reasoning</source>
            <translation>推理过程</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>显示推理过程</translation>
        </message>
        <message>
            <source>You asked to continue · {time}</source>
            <translation>你请求继续 · {time}</translation>
        </message>
        <message>
            <source>You · {time}</source>
            <translation>你 · {time}</translation>
        </message>
        <message>
            <source>Assistant · {model} · {time}</source>
            <translation>助手 · {model} · {time}</translation>
        </message>
        <message>
            <source>Assistant · {time}</source>
            <translation>助手 · {time}</translation>
        </message>
        <message>
            <source>■ Stopped</source>
            <translation>■ 已停止</translation>
        </message>
        <message>
            <source>⚠ Interrupted — the app closed while this answer was streaming</source>
            <translation>⚠ 已中断 — 此回答接收过程中应用被关闭</translation>
        </message>
        <message>
            <source>Show more</source>
            <translation>展开</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>收起</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>思考中…</translation>
        </message>
        <message>
            <source>Thought for {seconds} s</source>
            <translation>思考了 {seconds} 秒</translation>
        </message>
        <message>
            <source>Copy message as Markdown</source>
            <translation>将消息复制为 Markdown</translation>
        </message>
        <message>
            <source>Copy message as plain text</source>
            <translation>将消息复制为纯文本</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>复制为 Markdown</translation>
        </message>
        <message>
            <source>Copy as plain text</source>
            <translation>复制为纯文本</translation>
        </message>
        <message>
            <source>Copy code block {number}: {start}</source>
            <translation>复制代码块 {number}：{start}</translation>
        </message>
    </context>
    <context>
        <name>MicButton</name>
        <message>
            <source>Recording… click to stop</source>
            <translation>正在录音…点击停止</translation>
        </message>
        <message>
            <source>Stop and write down what you said</source>
            <translation>停止并将您说的话转成文字</translation>
        </message>
        <message>
            <source>Stop dictation</source>
            <translation>停止听写</translation>
        </message>
        <message>
            <source>Writing it down…</source>
            <translation>正在转成文字…</translation>
        </message>
        <message>
            <source>Your recording is being written down</source>
            <translation>正在将您的录音转成文字</translation>
        </message>
        <message>
            <source>Transcribing</source>
            <translation>正在转写</translation>
        </message>
        <message>
            <source>Dictate (failed)</source>
            <translation>听写（失败）</translation>
        </message>
        <message>
            <source>Dictate: record what you say, then edit the text before sending</source>
            <translation>听写：录下您说的话，发送前可编辑文字</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>听写</translation>
        </message>
    </context>
    <context>
        <name>ModelPicker</name>
        <message>
            <source>Search models, or type a model id</source>
            <translation>搜索模型，或输入模型 ID</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>搜索模型</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>No model matches. Press Enter to use the text as a model id.</source>
            <translation>没有匹配的模型。按 Enter 将此文本用作模型 ID。</translation>
        </message>
        <message>
            <source>A model id has no spaces: nothing was changed.</source>
            <translation>模型 ID 不含空格：未做任何更改。</translation>
        </message>
    </context>
    <context>
        <name>ModelWords</name>
        <message>
            <source>Favourites</source>
            <translation>收藏</translation>
        </message>
        <message>
            <source>Recent</source>
            <translation>最近</translation>
        </message>
        <message>
            <source>makes images</source>
            <translation>生成图片</translation>
        </message>
        <message>
            <source>tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>images</source>
            <translation>图像</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>推理</translation>
        </message>
    </context>
    <context>
        <name>PageCount</name>
        <message numerus="yes">
            <source>%n slide(s)</source>
            <translation>
                <numerusform>%n 张幻灯片</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sheet(s)</source>
            <translation>
                <numerusform>%n 个工作表</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n chapter(s)</source>
            <translation>
                <numerusform>%n 章</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s)</source>
            <translation>
                <numerusform>%n 页</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PasteDialog</name>
        <message>
            <source>Paste MCP servers</source>
            <translation>粘贴 MCP 服务器</translation>
        </message>
        <message>
            <source>Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</source>
            <translation>粘贴 Claude Desktop 格式的配置，例如 {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</translation>
        </message>
        <message>
            <source>MCP configuration JSON</source>
            <translation>MCP 配置 JSON</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>导入</translation>
        </message>
    </context>
    <context>
        <name>PricesDialog</name>
        <message>
            <source>Model id</source>
            <translation>模型 ID</translation>
        </message>
        <message>
            <source>Input $/M</source>
            <translation>输入 $/M</translation>
        </message>
        <message>
            <source>Output $/M</source>
            <translation>输出 $/M</translation>
        </message>
        <message>
            <source>Cached input $/M</source>
            <translation>缓存输入 $/M</translation>
        </message>
        <message>
            <source>Model prices</source>
            <translation>模型价格</translation>
        </message>
        <message>
            <source>Costs use the provider's own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
            <translation>费用优先使用提供商报告的数值，其次使用这些价格，再其次使用内置的常见模型价格表。价格单位为美元/百万令牌；模型 ID 必须完全一致。</translation>
        </message>
        <message>
            <source>Add row</source>
            <translation>添加行</translation>
        </message>
        <message>
            <source>Remove row</source>
            <translation>移除行</translation>
        </message>
        <message>
            <source>Row {row}: enter a model id.</source>
            <translation>第 {row} 行：请输入模型 ID。</translation>
        </message>
        <message>
            <source>Row {row}: prices must be numbers.</source>
            <translation>第 {row} 行：价格必须是数字。</translation>
        </message>
        <message>
            <source>Row {row}: enter input and output prices.</source>
            <translation>第 {row} 行：请输入输入和输出价格。</translation>
        </message>
        <message>
            <source>Row {row}: prices cannot be negative.</source>
            <translation>第 {row} 行：价格不能为负数。</translation>
        </message>
    </context>
    <context>
        <name>ProjectActions</name>
        <message>
            <source>New chat in the project “{name}”: its instructions and files are part of every answer.</source>
            <translation>项目“{name}”中的新聊天：它的说明和文件会用于每次回答。</translation>
        </message>
        <message>
            <source>New chat in the project {name}</source>
            <translation>项目 {name} 中的新聊天</translation>
        </message>
        <message>
            <source>Delete the project “{name}”?</source>
            <translation>删除项目“{name}”？</translation>
        </message>
        <message numerus="yes">
            <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
            <translation>
                <numerusform>它的 %n 个聊天会保留并移出项目。项目的说明和文件文本将被删除。</numerusform>
            </translation>
        </message>
        <message>
            <source>Delete project</source>
            <translation>删除项目</translation>
        </message>
        <message numerus="yes">
            <source>Deleted the project {name}; its %n chats are in the list.</source>
            <translation>
                <numerusform>已删除项目 {name}；它的 %n 个聊天仍在列表中。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ProjectPage</name>
        <message>
            <source>e.g. Thesis, Garden, Client X</source>
            <translation>例如：论文、花园、客户 X</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>What every chat in this project should know or do. Added after the assistant's prompt.</source>
            <translation>此项目中每个聊天都应知道或遵循的内容。添加在助手提示词之后。</translation>
        </message>
        <message>
            <source>Instructions</source>
            <translation>说明</translation>
        </message>
        <message>
            <source>The provider's default</source>
            <translation>提供商的默认模型</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>默认模型</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>工作区文件夹</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>仅这些工具</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>仅这些工具（否则使用应用的工具设置）</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>已启用的工具</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Every chat in the project has these: small text files whole, larger ones searched.</source>
            <translation>项目中的每个聊天都能使用这些文件：小文本文件完整提供，大文件按需搜索。</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>添加文件…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>New chat in this project</source>
            <translation>在此项目中新建聊天</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>删除项目…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Project: {name}</source>
            <translation>项目：{name}</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>新建项目</translation>
        </message>
        <message>
            <source>No knowledge bases yet.</source>
            <translation>还没有知识库。</translation>
        </message>
        <message>
            <source>in every chat</source>
            <translation>在每个聊天中</translation>
        </message>
        <message>
            <source>searched when needed</source>
            <translation>需要时搜索</translation>
        </message>
        <message>
            <source>No chats yet. Start one, or drag a chat onto the project in the list.</source>
            <translation>还没有聊天。新建一个，或将列表中的聊天拖到该项目上。</translation>
        </message>
        <message>
            <source>Adding…</source>
            <translation>正在添加…</translation>
        </message>
        <message>
            <source>Add files to the project</source>
            <translation>向项目添加文件</translation>
        </message>
    </context>
    <context>
        <name>ProjectSection</name>
        <message>
            <source>Projects</source>
            <translation>项目</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>新建项目</translation>
        </message>
        <message>
            <source>Drag a chat here to move it into a project</source>
            <translation>将聊天拖到这里即可移入项目</translation>
        </message>
        <message>
            <source>Group chats with shared instructions and files.</source>
            <translation>用共享的说明和文件将聊天分组。</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n 个聊天</numerusform>
            </translation>
        </message>
        <message>
            <source>Open project</source>
            <translation>打开项目</translation>
        </message>
        <message>
            <source>New chat in project</source>
            <translation>在项目中新建聊天</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>删除项目…</translation>
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
            <translation>发送</translation>
        </message>
        <message>
            <source>Fill in: {0}</source>
            <translation>填写：{0}</translation>
        </message>
    </context>
    <context>
        <name>ProviderDialog</name>
        <message>
            <source>Providers</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>Add to my providers</source>
            <translation>添加到我的提供商</translation>
        </message>
        <message>
            <source>Add detected provider to my providers</source>
            <translation>将检测到的提供商添加到我的提供商</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>New provider</source>
            <translation>新提供商</translation>
        </message>
        <message>
            <source>Discard your changes to “{name}”?</source>
            <translation>放弃对“{name}”的更改？</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>未保存的更改</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its saved API key is deleted too.</source>
            <translation>移除“{name}”？其保存的 API 密钥也会被删除。</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>移除提供商</translation>
        </message>
        <message>
            <source>Added to your providers.</source>
            <translation>已添加到你的提供商。</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Header line {number} should look like “Name: value”</source>
            <translation>第 {number} 行请求头应为“名称: 值”的形式</translation>
        </message>
        <message>
            <source>Provider name</source>
            <translation>提供商名称</translation>
        </message>
        <message>
            <source>A name you will recognize</source>
            <translation>一个你能认出的名称</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>名称(&amp;N)</translation>
        </message>
        <message>
            <source>Preset</source>
            <translation>预设</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>基础 URL</translation>
        </message>
        <message>
            <source>https://example.com/v1</source>
            <translation>https://example.com/v1</translation>
        </message>
        <message>
            <source>Base &amp;URL</source>
            <translation>基础 URL(&amp;U)</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>显示</translation>
        </message>
        <message>
            <source>Show API key</source>
            <translation>显示 API 密钥</translation>
        </message>
        <message>
            <source>Get a key</source>
            <translation>获取密钥</translation>
        </message>
        <message>
            <source>API &amp;key</source>
            <translation>API 密钥(&amp;K)</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>获取模型</translation>
        </message>
        <message>
            <source>Ask the provider which models it offers</source>
            <translation>询问提供商提供哪些模型</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>模型(&amp;M)</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>额外请求头</translation>
        </message>
        <message>
            <source>Optional, one per line — Name: value</source>
            <translation>可选，每行一个 — 名称: 值</translation>
        </message>
        <message>
            <source>Extra &amp;headers</source>
            <translation>额外请求头(&amp;H)</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>连接状态</translation>
        </message>
        <message>
            <source>an environment variable</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Read from {variable} (never stored by Assista)</source>
            <translation>从 {variable} 读取（Assista 从不保存）</translation>
        </message>
        <message>
            <source>Not needed for {name} (optional)</source>
            <translation>{name} 不需要（可选）</translation>
        </message>
        <message>
            <source>Paste your API key</source>
            <translation>粘贴你的 API 密钥</translation>
        </message>
        <message>
            <source>Enter a name.</source>
            <translation>请输入名称。</translation>
        </message>
        <message>
            <source>Enter the base URL (for example https://api.openai.com/v1).</source>
            <translation>请输入基础 URL（例如 https://api.openai.com/v1）。</translation>
        </message>
        <message>
            <source>The base URL must start with http:// or https:// and name a server.</source>
            <translation>基础 URL 必须以 http:// 或 https:// 开头并包含服务器地址。</translation>
        </message>
        <message>
            <source>Put the key in the API key field, not in the {name} header.</source>
            <translation>请把密钥填在 API 密钥字段中，而不是 {name} 请求头里。</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>处理中…</translation>
        </message>
        <message>
            <source>✗ Internal error: no asyncio event loop is running.</source>
            <translation>✗ 内部错误：没有正在运行的 asyncio 事件循环。</translation>
        </message>
        <message>
            <source>Testing connection…</source>
            <translation>正在测试连接…</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>正在获取模型…</translation>
        </message>
        <message>
            <source>Unexpected error: {error}</source>
            <translation>意外错误：{error}</translation>
        </message>
        <message numerus="yes">
            <source>✓ Connected — %n models</source>
            <translation>
                <numerusform>✓ 已连接 — %n 个模型</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>✓ %n models found</source>
            <translation>
                <numerusform>✓ 找到 %n 个模型</numerusform>
            </translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>隐藏</translation>
        </message>
        <message>
            <source>Hide API key</source>
            <translation>隐藏 API 密钥</translation>
        </message>
    </context>
    <context>
        <name>ProviderList</name>
        <message>
            <source>Providers</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>Add provider</source>
            <translation>添加提供商</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>移除提供商</translation>
        </message>
        <message>
            <source>No base URL yet</source>
            <translation>尚无基础 URL</translation>
        </message>
    </context>
    <context>
        <name>ProviderOptionsBox</name>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tools capability</source>
            <translation>工具能力</translation>
        </message>
        <message>
            <source>Images</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>Images capability</source>
            <translation>图片能力</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Reasoning capability</source>
            <translation>推理能力</translation>
        </message>
        <message>
            <source>minimal</source>
            <translation>最低</translation>
        </message>
        <message>
            <source>low</source>
            <translation>低</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>high</source>
            <translation>高</translation>
        </message>
        <message>
            <source>Model behaviour</source>
            <translation>模型行为</translation>
        </message>
        <message>
            <source>Ask the model to think before answering</source>
            <translation>让模型先思考再回答</translation>
        </message>
        <message>
            <source>Extended thinking</source>
            <translation>扩展思考</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> 令牌</translation>
        </message>
        <message>
            <source>Thinking budget</source>
            <translation>思考预算</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推理强度</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>思考</translation>
        </message>
        <message>
            <source>Chain responses on the server (previous_response_id)</source>
            <translation>在服务器上串联响应（previous_response_id）</translation>
        </message>
        <message>
            <source>Stateless replay (store: false)</source>
            <translation>无状态重放（store: false）</translation>
        </message>
        <message>
            <source>Responses API mode</source>
            <translation>Responses API 模式</translation>
        </message>
        <message>
            <source>Conversation state</source>
            <translation>对话状态</translation>
        </message>
        <message>
            <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
            <translation>勾选：模型支持 · 未勾选：不支持 · 部分勾选：根据模型名称判断</translation>
        </message>
        <message>
            <source>Capabilities</source>
            <translation>能力</translation>
        </message>
    </context>
    <context>
        <name>ProviderText</name>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>自定义（兼容 OpenAI）</translation>
        </message>
        <message>
            <source>{name} — not saved</source>
            <translation>{name} — 未保存</translation>
        </message>
        <message>
            <source>{name} — from environment ({variable})</source>
            <translation>{name} — 来自环境变量（{variable}）</translation>
        </message>
        <message>
            <source>no key</source>
            <translation>无密钥</translation>
        </message>
        <message>
            <source>{name} — detected</source>
            <translation>{name} — 已检测到</translation>
        </message>
        <message>
            <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
            <translation>来自环境变量（{variable}）。此处只读：其密钥保留在环境中，绝不会复制到 Assista。</translation>
        </message>
        <message>
            <source>{name} is running on this computer. Add it to edit it.</source>
            <translation>{name} 正在本机运行。添加后即可编辑。</translation>
        </message>
        <message>
            <source>The key is read from {variable} each time Assista starts.</source>
            <translation>每次 Assista 启动时都会从 {variable} 读取密钥。</translation>
        </message>
        <message>
            <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
            <translation>未找到系统密钥环：密钥保存在只有你可读的文件中（{file}）</translation>
        </message>
        <message>
            <source>Keys are stored in the system keyring ({keyring})</source>
            <translation>密钥保存在系统密钥环中（{keyring}）</translation>
        </message>
    </context>
    <context>
        <name>QuickAsk</name>
        <message>
            <source>&amp;Quick ask…</source>
            <extracomment>an answer in the quick window finished: chat title, answer, failed, the quick window started alone (``assista quick``), put away, and the main window is hidden too</extracomment>
            <translation>快速提问(&amp;Q)…</translation>
        </message>
    </context>
    <context>
        <name>QuickAskWindow</name>
        <message>
            <source>Quick ask</source>
            <translation>快速提问</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>问题</translation>
        </message>
        <message>
            <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
            <translation>Enter 发送，Shift+Enter 换行，Esc 关闭窗口</translation>
        </message>
        <message>
            <source>Ask anything… (Enter sends)</source>
            <translation>随便问点什么…（Enter 发送）</translation>
        </message>
        <message>
            <source>Insert &amp;selection</source>
            <translation>插入选中内容(&amp;S)</translation>
        </message>
        <message>
            <source>Insert the text selected in another application (or the clipboard)</source>
            <translation>插入在其他应用中选中的文本（或剪贴板内容）</translation>
        </message>
        <message>
            <source>&amp;Open in the main window</source>
            <translation>在主窗口中打开(&amp;O)</translation>
        </message>
        <message>
            <source>Continue this chat in the main window</source>
            <translation>在主窗口中继续此聊天</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
        <message>
            <source>Add a provider in the main window first (Settings → Providers).</source>
            <translation>请先在主窗口中添加提供商（设置 → 提供商）。</translation>
        </message>
        <message>
            <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
            <translation>{tool} 正在等待你的批准：请在主窗口中打开此聊天进行处理。</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Nothing is selected and the clipboard is empty.</source>
            <translation>没有选中内容，剪贴板也是空的。</translation>
        </message>
    </context>
    <context>
        <name>QuitGuard</name>
        <message>
            <source>Quit while answering?</source>
            <translation>正在回答时退出？</translation>
        </message>
        <message numerus="yes">
            <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
            <translation>
                <numerusform>还有 %n 个聊天正在回答。仍要退出吗？已写出的内容会保留并标记为已停止。</numerusform>
            </translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
    </context>
    <context>
        <name>ReadingBar</name>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>停止朗读</translation>
        </message>
        <message>
            <source>Preparing to read aloud…</source>
            <translation>正在准备朗读…</translation>
        </message>
        <message>
            <source>Reading aloud</source>
            <translation>正在朗读</translation>
        </message>
        <message>
            <source>Reading aloud (paused)</source>
            <translation>正在朗读（已暂停）</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Go on reading</source>
            <translation>继续朗读</translation>
        </message>
        <message>
            <source>Pause reading</source>
            <translation>暂停朗读</translation>
        </message>
    </context>
    <context>
        <name>ReplayView</name>
        <message>
            <source>First token %1 · total %2 · %3 tokens · %4 tok/s</source>
            <translation>首个令牌 %1 · 总计 %2 · %3 个令牌 · %4 令牌/秒</translation>
        </message>
        <message>
            <source>Provider to send to</source>
            <translation>发送到的提供商</translation>
        </message>
        <message>
            <source>Model to send to</source>
            <translation>发送到的模型</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>回放</translation>
        </message>
        <message>
            <source>Send the same request again (nothing is added to the chat)</source>
            <translation>再次发送相同的请求（不会向聊天添加任何内容）</translation>
        </message>
        <message>
            <source>Not replayed yet</source>
            <translation>尚未回放</translation>
        </message>
        <message>
            <source>Send to:</source>
            <translation>发送到：</translation>
        </message>
        <message>
            <source>No provider is configured.</source>
            <translation>尚未配置任何提供商。</translation>
        </message>
        <message>
            <source>Sending the request again…</source>
            <translation>正在重新发送请求…</translation>
        </message>
        <message>
            <source>Replay failed.</source>
            <translation>回放失败。</translation>
        </message>
        <message>
            <source>Replayed.</source>
            <translation>已回放。</translation>
        </message>
    </context>
    <context>
        <name>RequestInspector</name>
        <message>
            <source>There is no answer in this chat to inspect yet.</source>
            <translation>此聊天中还没有可检查的回答。</translation>
        </message>
        <message>
            <source>The recorded requests cannot be read: %1</source>
            <translation>无法读取已记录的请求：%1</translation>
        </message>
        <message>
            <source>No request was recorded for this answer. Recording may be off in Settings, or the record is older than the retention period.</source>
            <translation>此回答没有记录任何请求。可能是设置中关闭了记录，或记录已超过保留期限。</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>请求检查器</translation>
        </message>
    </context>
    <context>
        <name>ResearchPanel</name>
        <message>
            <source>Research progress</source>
            <translation>研究进度</translation>
        </message>
        <message>
            <source>Research status</source>
            <translation>研究状态</translation>
        </message>
        <message>
            <source>Hide the research progress</source>
            <translation>隐藏研究进度</translation>
        </message>
        <message>
            <source>Research time, tokens and cost</source>
            <translation>研究用时、令牌和费用</translation>
        </message>
        <message>
            <source>Plan:</source>
            <translation>计划：</translation>
        </message>
        <message numerus="yes">
            <source>Searches (%n):</source>
            <translation>
                <numerusform>搜索（%n）：</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Sources read (%n):</source>
            <translation>
                <numerusform>已读来源（%n）：</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s) could not be read.</source>
            <translation>
                <numerusform>有 %n 个页面无法读取。</numerusform>
            </translation>
        </message>
        <message>
            <source>Research: making a plan…</source>
            <translation>研究：正在制定计划…</translation>
        </message>
        <message>
            <source>Research: searching…</source>
            <translation>研究：正在搜索…</translation>
        </message>
        <message>
            <source>Research: reading pages…</source>
            <translation>研究：正在阅读网页…</translation>
        </message>
        <message>
            <source>Research: writing the report…</source>
            <translation>研究：正在撰写报告…</translation>
        </message>
        <message>
            <source>Research finished</source>
            <translation>研究完成</translation>
        </message>
        <message>
            <source>(round {round} of {rounds})</source>
            <translation>（第 {round} 轮，共 {rounds} 轮）</translation>
        </message>
        <message>
            <source>{elapsed} of {limit}</source>
            <translation>{elapsed} / {limit}</translation>
        </message>
        <message numerus="yes">
            <source>%n token(s)</source>
            <translation>
                <numerusform>%n 个令牌</numerusform>
            </translation>
        </message>
        <message>
            <source>cost unknown</source>
            <translation>费用未知</translation>
        </message>
        <message>
            <source>{cost} of {ceiling}</source>
            <translation>{cost} / {ceiling}</translation>
        </message>
        <message numerus="yes">
            <source>Stopped at the limit of %n search round(s).</source>
            <translation>
                <numerusform>已在 %n 轮搜索的上限处停止。</numerusform>
            </translation>
        </message>
        <message>
            <source>Stopped at the time limit ({limit}).</source>
            <translation>已在时间上限（{limit}）处停止。</translation>
        </message>
        <message>
            <source>Stopped at the cost ceiling ({ceiling}); the report is made of what was found.</source>
            <translation>已在费用上限（{ceiling}）处停止；报告由已找到的内容组成。</translation>
        </message>
        <message>
            <source>Stopped; the report holds what was found so far.</source>
            <translation>已停止；报告保留了目前找到的内容。</translation>
        </message>
        <message>
            <source>The research failed; what was found is kept in the report.</source>
            <translation>研究失败；已找到的内容保留在报告中。</translation>
        </message>
    </context>
    <context>
        <name>ResponsivePanels</name>
        <message>
            <source>Show the chat list (Ctrl+Shift+L)</source>
            <translation>显示聊天列表（Ctrl+Shift+L）</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>聊天列表</translation>
        </message>
    </context>
    <context>
        <name>ResultColumn</name>
        <message>
            <source>Error: %1</source>
            <translation>错误：%1</translation>
        </message>
        <message>
            <source>Answer of %1</source>
            <translation>%1 的回答</translation>
        </message>
    </context>
    <context>
        <name>RetrievalText</name>
        <message>
            <source>Query</source>
            <translation>查询</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>未找到任何内容。</translation>
        </message>
    </context>
    <context>
        <name>SaveBanner</name>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Try to store the answer again</source>
            <translation>再次尝试保存回答</translation>
        </message>
        <message>
            <source>Retry saving the answer</source>
            <translation>重试保存回答</translation>
        </message>
        <message>
            <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
            <translation>无法保存回答：{error}。在保存成功前会一直保留在这里。</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Still not saved: {error}. The answer is kept here; try again.</source>
            <translation>仍未保存：{error}。回答保留在此；请重试。</translation>
        </message>
    </context>
    <context>
        <name>ScopeRow</name>
        <message>
            <source>Always allow for paths matching</source>
            <translation>始终允许匹配以下模式的路径</translation>
        </message>
        <message>
            <source>Always allow for the command</source>
            <translation>始终允许此命令</translation>
        </message>
        <message>
            <source>Always allow needs a scope: type one, or allow once.</source>
            <translation>“始终允许”需要一个范围：请输入一个，或仅允许一次。</translation>
        </message>
        <message>
            <source>The pattern must stay inside the workspace (a relative path).</source>
            <translation>模式必须位于工作区内（相对路径）。</translation>
        </message>
        <message>
            <source>Files in a .git folder are never allowed without asking.</source>
            <translation>.git 文件夹中的文件永远不会未经询问就被允许。</translation>
        </message>
        <message>
            <source>A command with shell syntax ($ ` ; | &amp; &gt; &lt; \, a line break, or * ? ~ ( ) outside quotes) cannot be always allowed.</source>
            <translation>含有 shell 语法（$ ` ; | &amp; &gt; &lt; \、换行，或引号外的 * ? ~ ( )）的命令不能始终允许。</translation>
        </message>
        <message>
            <source>A host is a name such as api.example.com or *.example.com.</source>
            <translation>主机是一个名称，例如 api.example.com 或 *.example.com。</translation>
        </message>
        <message>
            <source>This call cannot be always allowed.</source>
            <translation>此调用不能始终允许。</translation>
        </message>
        <message>
            <source>Writes to paths matching {scope} (never inside .git) run without asking, in every chat.</source>
            <translation>写入匹配 {scope} 的路径（绝不包括 .git 内）将在所有聊天中无需询问直接运行。</translation>
        </message>
        <message>
            <source>Fetches from {scope} run without asking, in every chat.</source>
            <translation>从 {scope} 获取内容将在所有聊天中无需询问直接运行。</translation>
        </message>
        <message>
            <source>“{scope}” runs without asking, in every chat, with its read-only options and arguments inside the workspace; anything else asks again.</source>
            <translation>“{scope}”在所有聊天中无需询问直接运行，限于其只读选项和工作区内的参数；其他情况会再次询问。</translation>
        </message>
        <message>
            <source>Exactly the command “{scope}” runs without asking, in every chat; any other asks again.</source>
            <translation>仅命令“{scope}”本身在所有聊天中无需询问直接运行；其他命令会再次询问。</translation>
        </message>
        <message>
            <source>What “Always allow” grants: calls inside it will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
            <translation>“始终允许”授予的范围：范围内的调用将在所有聊天中无需询问直接运行；其他调用仍会询问。可在 设置 → 工具 中撤销。</translation>
        </message>
        <message>
            <source>Always allow for the host</source>
            <translation>始终允许此主机</translation>
        </message>
    </context>
    <context>
        <name>SearchDialog</name>
        <message>
            <source>d MMM</source>
            <translation>M月d日</translation>
        </message>
        <message>
            <source>Search chats</source>
            <translation>搜索聊天</translation>
        </message>
        <message>
            <source>Search every chat — words, "exact phrases", any language</source>
            <translation>搜索所有聊天 — 词语、"精确短语"、任何语言</translation>
        </message>
        <message>
            <source>Search results</source>
            <translation>搜索结果</translation>
        </message>
        <message>
            <source>No matches.</source>
            <translation>没有匹配项。</translation>
        </message>
        <message numerus="yes">
            <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n 个匹配（显示最新的）· Enter 打开 · ↑↓ 移动 · Esc 关闭</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n 个匹配 · Enter 打开 · ↑↓ 移动 · Esc 关闭</numerusform>
            </translation>
        </message>
        <message>
            <source>Type to search every chat, every branch, tool calls and titles.</source>
            <translation>输入以搜索所有聊天、所有分支、工具调用和标题。</translation>
        </message>
    </context>
    <context>
        <name>SectionDelegate</name>
        <message numerus="yes">
            <source>%n messages</source>
            <translation>
                <numerusform>%n 条消息</numerusform>
            </translation>
        </message>
        <message>
            <source>Now: {state}</source>
            <translation>当前：{state}</translation>
        </message>
    </context>
    <context>
        <name>Segment</name>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>保存…</translation>
        </message>
        <message>
            <source>Picture</source>
            <translation>图像</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>源码</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>预览</translation>
        </message>
        <message>
            <source>Open in your browser: this runs the model's code, with every network request blocked</source>
            <translation>在浏览器中打开：这会运行模型的代码，所有网络请求均被阻止</translation>
        </message>
        <message>
            <source>Show the code, or the drawing</source>
            <translation>显示代码或图形</translation>
        </message>
        <message>
            <source>Save this as a file</source>
            <translation>将其保存为文件</translation>
        </message>
        <message>
            <source>The preview runs the model's code in your web browser. Every network request from it is blocked, so it cannot send anything anywhere or load anything. Open it?</source>
            <translation>预览会在您的网页浏览器中运行模型的代码。它发出的所有网络请求都会被阻止，因此它无法向任何地方发送任何内容，也无法加载任何内容。要打开吗？</translation>
        </message>
        <message>
            <source>This build has no mermaid.js, so diagrams cannot be previewed.</source>
            <translation>此版本没有 mermaid.js，因此无法预览图表。</translation>
        </message>
        <message>
            <source>Could not write the preview: {error}</source>
            <translation>无法写入预览：{error}</translation>
        </message>
        <message>
            <source>Save as</source>
            <translation>另存为</translation>
        </message>
        <message>
            <source>{kind} files (*{suffix});;All files (*)</source>
            <translation>{kind} 文件 (*{suffix});;所有文件 (*)</translation>
        </message>
        <message>
            <source>Could not save {path}: {error}</source>
            <translation>无法保存 {path}：{error}</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>已复制</translation>
        </message>
    </context>
    <context>
        <name>ServerQuestionCard</name>
        <message>
            <source>MCP server {0} asks</source>
            <translation>MCP 服务器 {0} 提问</translation>
        </message>
        <message>
            <source>MCP server {0} wants the model to answer</source>
            <translation>MCP 服务器 {0} 希望模型回答</translation>
        </message>
        <message>
            <source>In “{0}”</source>
            <translation>在“{0}”中</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>提交</translation>
        </message>
        <message>
            <source>Decline</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>The messages the server sends</source>
            <translation>服务器发送的消息</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>允许</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>At most {0} tokens.</source>
            <translation>最多 {0} 个令牌。</translation>
        </message>
        <message>
            <source>(an image, {0})</source>
            <translation>（一张图片，{0}）</translation>
        </message>
    </context>
    <context>
        <name>SessionItems</name>
        <message>
            <source>waiting for the provider</source>
            <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
            <translation>正在等待提供商</translation>
        </message>
        <message>
            <source>answering</source>
            <translation>正在回答</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>正在等待你的批准</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>new answer</source>
            <translation>新回答</translation>
        </message>
        <message>
            <source>Today</source>
            <extracomment>The drag of a chat (onto a project): its session id, as UTF-8.</extracomment>
            <translation>今天</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>昨天</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>过去 7 天</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>更早</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>已置顶</translation>
        </message>
        <message>
            <source>Last changed {time}</source>
            <translation>最后修改于 {time}</translation>
        </message>
        <message>
            <source>Deleted {time}</source>
            <translation>删除于 {time}</translation>
        </message>
    </context>
    <context>
        <name>SessionList</name>
        <message>
            <source>+  New chat</source>
            <extracomment>Chats added each time the list is scrolled to its end: with thousands of chats, listing them all took hundreds of milliseconds on every change (each sent message; tests/bench/bench_shipped_startup.py). Chats listed at first: more than a tall window's list shows. The window lists them when it is built and again when a question typed while it loaded is sent, both before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.</extracomment>
            <translation>+  新建聊天</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>开始新对话（Ctrl+N）</translation>
        </message>
        <message>
            <source>Search chats…   Ctrl+K</source>
            <translation>搜索聊天…   Ctrl+K</translation>
        </message>
        <message>
            <source>Find a chat by a word in it (Ctrl+K)</source>
            <translation>按其中的词查找聊天（Ctrl+K）</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>清空回收站</translation>
        </message>
        <message>
            <source>Show chats</source>
            <translation>显示聊天</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>已归档</translation>
        </message>
        <message>
            <source>Show archived chats</source>
            <translation>显示已归档的聊天</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>回收站</translation>
        </message>
        <message>
            <source>Show the trash</source>
            <translation>显示回收站</translation>
        </message>
        <message numerus="yes">
            <source>Chats here are erased after %n days.</source>
            <translation>
                <numerusform>此处的聊天将在 %n 天后清除。</numerusform>
            </translation>
        </message>
        <message>
            <source>Chats here are erased when the app next starts.</source>
            <translation>此处的聊天将在下次启动应用时清除。</translation>
        </message>
        <message>
            <source>Archived chats</source>
            <translation>已归档的聊天</translation>
        </message>
        <message>
            <source>No chats yet.</source>
            <translation>还没有聊天。</translation>
        </message>
        <message>
            <source>Archived chats appear here.</source>
            <translation>已归档的聊天显示在这里。</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>回收站是空的。</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>永久删除…</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>重命名</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>取消置顶</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>置顶</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>取消归档</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>归档</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Move to project</source>
            <translation>移到项目</translation>
        </message>
        <message>
            <source>Remove from project</source>
            <translation>从项目中移除</translation>
        </message>
        <message>
            <source>the chat</source>
            <translation>该聊天</translation>
        </message>
        <message>
            <source>this chat</source>
            <translation>此聊天</translation>
        </message>
        <message>
            <source>Delete “{title}” forever? This cannot be undone.</source>
            <translation>永久删除“{title}”？此操作无法撤销。</translation>
        </message>
        <message>
            <source>Delete every chat in the trash forever? This cannot be undone.</source>
            <translation>永久删除回收站中的所有聊天？此操作无法撤销。</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>永久删除</translation>
        </message>
    </context>
    <context>
        <name>SessionPromptDialog</name>
        <message>
            <source>System prompt of this chat</source>
            <translation>此聊天的系统提示词</translation>
        </message>
        <message>
            <source>the assistant “{name}”</source>
            <translation>助手“{name}”</translation>
        </message>
        <message>
            <source>the default system prompt (Settings → Preferences)</source>
            <translation>默认系统提示词（设置 → 偏好设置）</translation>
        </message>
        <message>
            <source>The new chat</source>
            <translation>新聊天</translation>
        </message>
        <message>
            <source>Use this chat's own system prompt</source>
            <translation>为此聊天使用自己的系统提示词</translation>
        </message>
        <message>
            <source>Otherwise the chat uses {origin}.</source>
            <translation>否则聊天将使用{origin}。</translation>
        </message>
        <message>
            <source>Without it, this chat uses {origin}.</source>
            <translation>不使用时，此聊天将使用{origin}。</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>系统提示词</translation>
        </message>
        <message>
            <source>Full system prompt</source>
            <translation>完整系统提示词</translation>
        </message>
        <message>
            <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
            <translation>发送给模型的内容（包括你的自定义指令、工作区和日期）：</translation>
        </message>
        <message>
            <source>(no system prompt)</source>
            <translation>（无系统提示词）</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>High contrast</source>
            <translation>高对比度</translation>
        </message>
        <message>
            <source>Leave out the oldest turns</source>
            <translation>省略最早的轮次</translation>
        </message>
        <message>
            <source>Replace the oldest turns with a summary</source>
            <translation>用摘要替换最早的轮次</translation>
        </message>
        <message>
            <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
            <translation>例如 http://proxy.example.com:8080 或 socks5://127.0.0.1:1080</translation>
        </message>
        <message>
            <source>The proxy URL cannot contain spaces ({example}).</source>
            <translation>代理 URL 不能包含空格（{example}）。</translation>
        </message>
        <message>
            <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
            <translation>代理必须以 http://、https:// 或 socks5:// 开头（{example}）。</translation>
        </message>
        <message>
            <source>The proxy URL needs a host name ({example}).</source>
            <translation>代理 URL 需要主机名（{example}）。</translation>
        </message>
        <message>
            <source>The proxy port must be a number from 1 to 65535.</source>
            <translation>代理端口必须是 1 到 65535 之间的数字。</translation>
        </message>
        <message>
            <source>The proxy URL is only scheme://host:port ({example}).</source>
            <translation>代理 URL 只能是 scheme://host:port（{example}）。</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>偏好设置</translation>
        </message>
        <message>
            <source>Preferences sections</source>
            <translation>偏好设置分区</translation>
        </message>
        <message>
            <source>General</source>
            <translation>常规</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>记忆</translation>
        </message>
        <message>
            <source>Network</source>
            <translation>网络</translation>
        </message>
        <message>
            <source>Desktop</source>
            <translation>桌面</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>数据</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>网络搜索</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>Usage</source>
            <translation>用量</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>请求检查器</translation>
        </message>
        <message>
            <source>Settings error</source>
            <translation>设置错误</translation>
        </message>
        <message>
            <source>The assistant new chats start with</source>
            <translation>新聊天开始时使用的助手</translation>
        </message>
        <message>
            <source>Added to every chat: who you are, how you like answers…</source>
            <translation>添加到每个聊天：你是谁、你喜欢怎样的回答…</translation>
        </message>
        <message>
            <source>Custom instructions</source>
            <translation>自定义指令</translation>
        </message>
        <message>
            <source>Default system prompt</source>
            <translation>默认系统提示词</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>Base font size</source>
            <translation>基础字号</translation>
        </message>
        <message>
            <source> pt</source>
            <translation> 磅</translation>
        </message>
        <message>
            <source>Default</source>
            <translation>默认</translation>
        </message>
        <message>
            <source>New chats use</source>
            <translation>新聊天使用</translation>
        </message>
        <message>
            <source>A chat's own prompt (Chat → Edit system prompt…) or its assistant's replaces the default; custom instructions are always added.</source>
            <translation>聊天自己的提示词（聊天 → 编辑系统提示词…）或其助手的提示词会替换默认提示词；自定义指令始终会附加。</translation>
        </message>
        <message>
            <source>What happens when a chat no longer fits the model's context window (you are told when it does)</source>
            <translation>聊天超出模型上下文窗口时的处理方式（发生时会通知你）</translation>
        </message>
        <message>
            <source> days</source>
            <translation> 天</translation>
        </message>
        <message>
            <source>Erase at the next start</source>
            <translation>下次启动时清除</translation>
        </message>
        <message>
            <source>Let the model title new chats</source>
            <translation>让模型为新聊天命名</translation>
        </message>
        <message>
            <source>After a new chat's first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
            <translation>新聊天第一次回答后，由其模型写一个简短标题（一次小请求）。关闭时：第一条消息的第一行作为标题。你自己设置的标题永远不会被替换。</translation>
        </message>
        <message>
            <source>When a chat is too long</source>
            <translation>聊天过长时</translation>
        </message>
        <message>
            <source>Keep deleted chats in the trash</source>
            <translation>已删除聊天在回收站中的保留时间</translation>
        </message>
        <message>
            <source>Titles</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>Titles written by</source>
            <translation>标题撰写模型</translation>
        </message>
        <message>
            <source>Proxy URL</source>
            <translation>代理 URL</translation>
        </message>
        <message>
            <source>Empty: the system's settings. http://host:8080, socks5://host:1080</source>
            <translation>留空：使用系统设置。http://host:8080、socks5://host:1080</translation>
        </message>
        <message>
            <source>No proxy for</source>
            <translation>不使用代理的地址</translation>
        </message>
        <message>
            <source>localhost,127.0.0.1,.internal.example</source>
            <translation>localhost,127.0.0.1,.internal.example</translation>
        </message>
        <message>
            <source>Request timeout</source>
            <translation>请求超时</translation>
        </message>
        <message>
            <source> s</source>
            <translation> 秒</translation>
        </message>
        <message>
            <source>Proxy</source>
            <translation>代理</translation>
        </message>
        <message>
            <source>Answers at once per provider</source>
            <translation>每个提供商的同时回答数</translation>
        </message>
        <message>
            <source>More chats than this asking one provider at once wait their turn</source>
            <translation>超过此数量同时询问同一提供商的聊天将排队等待</translation>
        </message>
        <message>
            <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
            <translation>代理用于应用发出的所有请求：提供商、模型列表、fetch_url 以及通过 HTTP 的 MCP 服务器。用户名和密码可以写在 URL 中（http://user:pass@host:port）。</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>打开文件夹</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>数据文件夹</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir).</source>
            <translation>便携模式（--data-dir）。</translation>
        </message>
        <message>
            <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
            <translation>使用 --data-dir 文件夹 启动即可把数据放在别处。</translation>
        </message>
        <message>
            <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
            <translation>聊天和设置保存在其中的 {database}；日志在 {logs}/。{note} 如有系统密钥环，API 密钥保存在其中。</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>无助手</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Message box</source>
            <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
            <translation>消息框</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>New line</source>
            <translation>换行</translation>
        </message>
        <message>
            <source>Stop the answer</source>
            <translation>停止回答</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>聊天列表</translation>
        </message>
        <message>
            <source>Rename the chat</source>
            <translation>重命名聊天</translation>
        </message>
        <message>
            <source>Move the chat to the trash</source>
            <translation>将聊天移到回收站</translation>
        </message>
        <message>
            <source>Open the chat</source>
            <translation>打开聊天</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>位置</translation>
        </message>
        <message>
            <source>What</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>按键</translation>
        </message>
    </context>
    <context>
        <name>SkillSwitches</name>
        <message>
            <source>Skills</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>No skills (add some in Preferences → Skills)</source>
            <translation>没有技能（在 首选项 → 技能 中添加）</translation>
        </message>
    </context>
    <context>
        <name>SkillsPage</name>
        <message>
            <source>{path} does not exist.</source>
            <extracomment>The page's wording of the errors adding or removing a skill can carry.</extracomment>
            <translation>{path} 不存在。</translation>
        </message>
        <message>
            <source>There is no SKILL.md in it.</source>
            <translation>其中没有 SKILL.md。</translation>
        </message>
        <message>
            <source>The skill is not valid: {reason}</source>
            <translation>该技能无效：{reason}</translation>
        </message>
        <message>
            <source>The zip is refused: {reason}</source>
            <translation>已拒绝该 zip：{reason}</translation>
        </message>
        <message>
            <source>The skill is larger than 50 MB.</source>
            <translation>该技能大于 50 MB。</translation>
        </message>
        <message>
            <source>A skill named {name} is already added.</source>
            <translation>已添加名为 {name} 的技能。</translation>
        </message>
        <message>
            <source>There is no added skill named {name}.</source>
            <translation>没有名为 {name} 的已添加技能。</translation>
        </message>
        <message>
            <source>Skills are folders of instructions, scripts and resources the model loads when a task needs them. The model sees each skill's name and description; it reads the rest with the Load skill tool, and runs scripts with Run command (which asks first). A chat or assistant can turn skills off for itself.</source>
            <translation>技能是包含说明、脚本和资源的文件夹，模型在任务需要时加载。模型只看到每个技能的名称和描述；其余内容通过“加载技能”工具读取，脚本通过“运行命令”执行（会先询问）。聊天或助手可以为自己关闭技能。</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>From</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>描述</translation>
        </message>
        <message>
            <source>No skills yet. Add a folder that holds a SKILL.md, or a zip of one.</source>
            <translation>还没有技能。添加一个包含 SKILL.md 的文件夹，或它的 zip 压缩包。</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Add zip…</source>
            <translation>添加 zip…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Open skills folder</source>
            <translation>打开技能文件夹</translation>
        </message>
        <message>
            <source>On: offered to every chat</source>
            <translation>开启：提供给每个聊天</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>工作区</translation>
        </message>
        <message>
            <source>App</source>
            <translation>应用</translation>
        </message>
        <message>
            <source>Cannot be used: {problem}</source>
            <translation>无法使用：{problem}</translation>
        </message>
        <message>
            <source>Add a skill folder</source>
            <translation>添加技能文件夹</translation>
        </message>
        <message>
            <source>Add a skill from a zip</source>
            <translation>从 zip 添加技能</translation>
        </message>
        <message>
            <source>Zip archives (*.zip)</source>
            <translation>Zip 压缩包 (*.zip)</translation>
        </message>
        <message>
            <source>The skill could not be copied: {reason}</source>
            <translation>无法复制该技能：{reason}</translation>
        </message>
        <message>
            <source>Remove skill</source>
            <translation>移除技能</translation>
        </message>
        <message>
            <source>Remove the skill {name}? Its folder is deleted.</source>
            <translation>移除技能 {name}？其文件夹将被删除。</translation>
        </message>
        <message>
            <source>The skill could not be removed: {reason}</source>
            <translation>无法移除该技能：{reason}</translation>
        </message>
    </context>
    <context>
        <name>SlashPrompts</name>
        <message>
            <source>Prompts from MCP servers</source>
            <translation>来自 MCP 服务器的提示词</translation>
        </message>
        <message>
            <source>From MCP server {0}</source>
            <translation>来自 MCP 服务器 {0}</translation>
        </message>
        <message>
            <source>The prompt /{0} failed: {1}</source>
            <translation>提示词 /{0} 失败：{1}</translation>
        </message>
    </context>
    <context>
        <name>SourcesView</name>
        <message>
            <source>page %1, line %2</source>
            <translation>第 %1 页第 %2 行</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>第 %1 页</translation>
        </message>
        <message>
            <source>line %1</source>
            <translation>第 %1 行</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Source %1: %2</source>
            <translation>来源 %1：%2</translation>
        </message>
    </context>
    <context>
        <name>Spinner</name>
        <message>
            <source>Running</source>
            <translation>运行中</translation>
        </message>
    </context>
    <context>
        <name>StarterCard</name>
        <message>
            <source>Add</source>
            <extracomment>Cards per row at the dialog's usual width (one column when it is narrow).</extracomment>
            <translation>添加</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>添加 {name}</translation>
        </message>
        <message>
            <source>Added</source>
            <translation>已添加</translation>
        </message>
        <message>
            <source>Added as “{name}”; edit it in Assistants</source>
            <translation>已添加为“{name}”；可在“助手”中编辑</translation>
        </message>
    </context>
    <context>
        <name>StartupSkeleton</name>
        <message>
            <source>Message</source>
            <extracomment>Enter was pressed: send it once the app can the box had the keyboard focus called at Enter once a question can be sent before the window is built</extracomment>
            <translation>消息</translation>
        </message>
        <message>
            <source>Type a message… (it is sent once the app has loaded)</source>
            <translation>输入消息…（应用加载完成后发送）</translation>
        </message>
        <message>
            <source>Chats</source>
            <extracomment>clicked before the app had loaded listed by :meth:`fill` pressed in the window before :meth:`fill`</extracomment>
            <translation>聊天</translation>
        </message>
        <message>
            <source>+  New chat</source>
            <translation>+  新建聊天</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>工具活动</translation>
        </message>
        <message>
            <source>Opening…</source>
            <translation>正在打开…</translation>
        </message>
        <message>
            <source>Opening your chats…</source>
            <translation>正在打开你的聊天…</translation>
        </message>
    </context>
    <context>
        <name>SyncDialog</name>
        <message>
            <source>saved in the keyring — type to replace</source>
            <translation>已保存在密钥环中 — 输入可替换</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>密码</translation>
        </message>
        <message>
            <source>Secret access key</source>
            <translation>秘密访问密钥</translation>
        </message>
        <message>
            <source>User name</source>
            <translation>用户名</translation>
        </message>
        <message>
            <source>Access key ID</source>
            <translation>访问密钥 ID</translation>
        </message>
        <message>
            <source>Enter the password.</source>
            <translation>请输入密码。</translation>
        </message>
        <message>
            <source>Enter the user name.</source>
            <translation>请输入用户名。</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>同步</translation>
        </message>
        <message>
            <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
            <translation>通过你自己的存储，在你的其他电脑之间同步聊天、助手和设置。所有内容在离开本机前都会用你的口令加密；API 密钥永远不会离开。</translation>
        </message>
        <message>
            <source>Sync target</source>
            <translation>同步目标</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>文件夹…</translation>
        </message>
        <message>
            <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
            <translation>选择由其他工具同步的文件夹（Syncthing、Dropbox、iCloud Drive、OneDrive）</translation>
        </message>
        <message>
            <source>AWS when empty; e.g. https://minio.example:9000</source>
            <translation>留空为 AWS；例如 https://minio.example:9000</translation>
        </message>
        <message>
            <source>us-east-1</source>
            <translation>us-east-1</translation>
        </message>
        <message>
            <source>the same passphrase again</source>
            <translation>再次输入相同的口令</translation>
        </message>
        <message>
            <source>the same on every computer; it cannot be recovered</source>
            <translation>每台电脑上都相同；无法找回</translation>
        </message>
        <message>
            <source>Sync automatically (after changes and every 5 minutes)</source>
            <translation>自动同步（更改后及每 5 分钟）</translation>
        </message>
        <message>
            <source>Target</source>
            <translation>目标</translation>
        </message>
        <message>
            <source>S3 endpoint</source>
            <translation>S3 端点</translation>
        </message>
        <message>
            <source>S3 region</source>
            <translation>S3 区域</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>口令</translation>
        </message>
        <message>
            <source>Repeat</source>
            <translation>再次输入</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>立即同步</translation>
        </message>
        <message>
            <source>{user} (from the URL)</source>
            <translation>{user}（来自 URL）</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>选择同步文件夹</translation>
        </message>
        <message>
            <source>Enter where to sync: {forms}.</source>
            <translation>请输入同步目标：{forms}。</translation>
        </message>
        <message>
            <source>Unknown target: use {forms}.</source>
            <translation>未知的目标：请使用 {forms}。</translation>
        </message>
        <message>
            <source>Enter the S3 access key ID.</source>
            <translation>请输入 S3 访问密钥 ID。</translation>
        </message>
        <message>
            <source>Enter the S3 secret access key.</source>
            <translation>请输入 S3 秘密访问密钥。</translation>
        </message>
        <message>
            <source>Choose a passphrase (the same on every computer).</source>
            <translation>请设置口令（每台电脑上都相同）。</translation>
        </message>
        <message>
            <source>The two passphrases differ.</source>
            <translation>两次输入的口令不一致。</translation>
        </message>
        <message>
            <source>Testing the connection…</source>
            <translation>正在测试连接…</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>正在同步…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>同步失败：{error}</translation>
        </message>
        <message>
            <source>Status: {status}</source>
            <translation>状态：{status}</translation>
        </message>
    </context>
    <context>
        <name>SyncScheduler</name>
        <message>
            <source>just now</source>
            <translation>刚刚</translation>
        </message>
        <message>
            <source>{minutes} min ago</source>
            <translation>{minutes} 分钟前</translation>
        </message>
        <message>
            <source>{hours} h ago</source>
            <translation>{hours} 小时前</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>正在同步…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>同步失败：{error}</translation>
        </message>
        <message>
            <source>Not synced yet</source>
            <translation>尚未同步</translation>
        </message>
        <message>
            <source>Synced {when}</source>
            <translation>已同步 {when}</translation>
        </message>
    </context>
    <context>
        <name>SyncStatusLabel</name>
        <message>
            <source>Sync: click for Settings → Sync</source>
            <translation>同步：点击打开 设置 → 同步</translation>
        </message>
    </context>
    <context>
        <name>SyncTexts</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>%n 天前</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes waiting</source>
            <translation>
                <numerusform>%n 项更改待同步</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TemporaryBanner</name>
        <message>
            <source>Temporary chat: it uses no memory and is not kept once you leave it.</source>
            <translation>临时聊天：不使用记忆，离开后不会保留。</translation>
        </message>
    </context>
    <context>
        <name>TitleModelCombo</name>
        <message>
            <source>Model that writes titles</source>
            <translation>撰写标题的模型</translation>
        </message>
        <message>
            <source>The chat's own model, or one model for every title (a small, quick one is enough)</source>
            <translation>对话自己的模型，或为所有标题使用同一个模型（小而快的模型就够了）</translation>
        </message>
        <message>
            <source>The chat's model</source>
            <translation>对话的模型</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{provider} 上的 {model}</translation>
        </message>
    </context>
    <context>
        <name>ToolActivity</name>
        <message>
            <source>{model} cannot use tools: none are sent to it</source>
            <translation>{model} 不能使用工具：不会向其发送任何工具</translation>
        </message>
    </context>
    <context>
        <name>ToolCallCard</name>
        <message>
            <source>… starting</source>
            <translation>… 正在开始</translation>
        </message>
        <message>
            <source>waiting for approval</source>
            <translation>等待批准</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>✓ succeeded</source>
            <translation>✓ 成功</translation>
        </message>
        <message>
            <source>✗ failed</source>
            <translation>✗ 失败</translation>
        </message>
        <message>
            <source>⊘ denied</source>
            <translation>⊘ 已拒绝</translation>
        </message>
        <message>
            <source>■ cancelled</source>
            <translation>■ 已取消</translation>
        </message>
        <message>
            <source>Show details of {tool}</source>
            <translation>显示 {tool} 的详细信息</translation>
        </message>
        <message>
            <source>pending</source>
            <translation>待处理</translation>
        </message>
        <message>
            <source>Output of {tool}</source>
            <translation>{tool} 的输出</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Stop this call; the assistant is told it was cancelled</source>
            <translation>停止此调用；会告知助手它已被取消</translation>
        </message>
        <message>
            <source>Cancel {tool}</source>
            <translation>取消 {tool}</translation>
        </message>
        <message>
            <source>Details of {tool}</source>
            <translation>{tool} 的详细信息</translation>
        </message>
        <message>
            <source>waiting {time} · review it above</source>
            <translation>已等待 {time} · 请在上方查看</translation>
        </message>
        <message>
            <source>… [more output in the result]</source>
            <translation>… [更多输出见结果]</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>参数</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>预览</translation>
        </message>
        <message>
            <source>Result · {status}</source>
            <translation>结果 · {status}</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>收起</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>显示全部</translation>
        </message>
        <message>
            <source>Image returned by {tool}</source>
            <translation>{tool} 返回的图片</translation>
        </message>
        <message>
            <source>[image: {type}] (cannot be shown)</source>
            <translation>[图片：{type}]（无法显示）</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>正在取消…</translation>
        </message>
    </context>
    <context>
        <name>ToolCallText</name>
        <message>
            <source>{seconds} s</source>
            <translation>{seconds} 秒</translation>
        </message>
        <message>
            <source>{minutes} min {seconds} s</source>
            <translation>{minutes} 分 {seconds} 秒</translation>
        </message>
        <message>
            <source>exit {code}</source>
            <translation>退出码 {code}</translation>
        </message>
        <message>
            <source>Diff</source>
            <translation>差异</translation>
        </message>
    </context>
    <context>
        <name>ToolCallsInline</name>
        <message>
            <source>waiting for your approval</source>
            <translation>等待你的批准</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>some failed</source>
            <translation>部分失败</translation>
        </message>
        <message>
            <source>done</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>收起</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>显示全部</translation>
        </message>
        <message>
            <source>Show the tool calls of this answer</source>
            <translation>显示此回答的工具调用</translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n 次工具调用</numerusform>
            </translation>
        </message>
        <message>
            <source>Tool call details</source>
            <translation>工具调用详情</translation>
        </message>
        <message>
            <source>{count} more characters</source>
            <translation>还有 {count} 个字符</translation>
        </message>
    </context>
    <context>
        <name>ToolNames</name>
        <message>
            <source>Read file</source>
            <translation>读取文件</translation>
        </message>
        <message>
            <source>List folder</source>
            <translation>列出文件夹</translation>
        </message>
        <message>
            <source>Search files</source>
            <translation>搜索文件</translation>
        </message>
        <message>
            <source>Write file</source>
            <translation>写入文件</translation>
        </message>
        <message>
            <source>Create file</source>
            <translation>创建文件</translation>
        </message>
        <message>
            <source>Edit file</source>
            <translation>编辑文件</translation>
        </message>
        <message>
            <source>Run command</source>
            <translation>运行命令</translation>
        </message>
        <message>
            <source>Fetch web page</source>
            <translation>获取网页</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>搜索网络</translation>
        </message>
        <message>
            <source>Search knowledge</source>
            <translation>搜索知识库</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>记住</translation>
        </message>
        <message>
            <source>Load skill</source>
            <translation>加载技能</translation>
        </message>
    </context>
    <context>
        <name>ToolSidebar</name>
        <message>
            <source>All calls</source>
            <translation>全部调用</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>等待中</translation>
        </message>
        <message>
            <source>No waiting calls.</source>
            <translation>没有等待中的调用。</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>No running calls.</source>
            <translation>没有运行中的调用。</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>No succeeded calls.</source>
            <translation>没有成功的调用。</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>No failed calls.</source>
            <translation>没有失败的调用。</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>No denied calls.</source>
            <translation>没有被拒绝的调用。</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>No cancelled calls.</source>
            <translation>没有已取消的调用。</translation>
        </message>
        <message>
            <source>{arrow} Turn {number} · {calls}</source>
            <translation>{arrow} 第 {number} 轮 · {calls}</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>工具活动</translation>
        </message>
        <message>
            <source>Show calls</source>
            <translation>显示调用</translation>
        </message>
        <message>
            <source>Show only calls with this status</source>
            <translation>只显示此状态的调用</translation>
        </message>
        <message>
            <source>Tool calls the assistant makes appear here.</source>
            <translation>助手发起的工具调用会显示在这里。</translation>
        </message>
        <message>
            <source>Turn {number}</source>
            <translation>第 {number} 轮</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>已取消</translation>
        </message>
        <message numerus="yes">
            <source>%n calls</source>
            <translation>
                <numerusform>%n 次调用</numerusform>
            </translation>
        </message>
        <message>
            <source>awaiting_approval</source>
            <translation>等待批准</translation>
        </message>
    </context>
    <context>
        <name>ToolsDialog</name>
        <message>
            <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
            <translation>&lt;b&gt;允许&lt;/b&gt;会立即运行工具，&lt;b&gt;询问&lt;/b&gt;会在运行前向你展示每次调用（包括差异、命令或 URL），&lt;b&gt;拒绝&lt;/b&gt;则从不运行，也不会提供该工具。只读工具默认为允许；写文件、运行命令和获取网页默认为询问。</translation>
        </message>
        <message>
            <source>Allow</source>
            <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
            <translation>允许</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>询问</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>built-in</source>
            <translation>内置</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP：{server}</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>On</source>
            <translation>开启</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>Tools and their policies</source>
            <translation>工具及其策略</translation>
        </message>
        <message>
            <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
            <translation>&lt;b&gt;始终允许&lt;/b&gt; — 在你撤销之前，这些工具在所有聊天中都会直接运行，不再询问。</translation>
        </message>
        <message>
            <source>Calls</source>
            <translation>调用</translation>
        </message>
        <message>
            <source>Since</source>
            <translation>起始时间</translation>
        </message>
        <message>
            <source>Always allowed tools</source>
            <translation>始终允许的工具</translation>
        </message>
        <message>
            <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
            <translation>没有始终允许的工具。在批准时选择“始终允许”即可添加。</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>忘记</translation>
        </message>
        <message>
            <source>Ask again in this chat for these tools</source>
            <translation>在此聊天中对这些工具重新询问</translation>
        </message>
        <message>
            <source>Offered to the assistant (each chat can still switch it off in the composer's tools menu)</source>
            <translation>提供给助手（每个聊天仍可在输入框的工具菜单中关闭）</translation>
        </message>
        <message>
            <source>Switch MCP tools on or off in Settings → MCP servers</source>
            <translation>在 设置 → MCP 服务器 中开启或关闭 MCP 工具</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>{tool} 的策略</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>默认（{policy}）</translation>
        </message>
        <message>
            <source>All calls</source>
            <translation>全部调用</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Revoke {tool} {calls}</source>
            <translation>撤销 {tool} {calls}</translation>
        </message>
        <message>
            <source>Ask again before {tool} runs</source>
            <translation>运行 {tool} 前重新询问</translation>
        </message>
        <message>
            <source>Allowed for this chat: </source>
            <translation>在此聊天中允许：</translation>
        </message>
        <message>
            <source>No tool is allowed just for this chat.</source>
            <translation>没有仅在此聊天中允许的工具。</translation>
        </message>
        <message>
            <source>This chat's commands may use the network.</source>
            <translation>此聊天的命令可以使用网络。</translation>
        </message>
        <message>
            <source>Revoked: {tool} will ask again before it runs.</source>
            <translation>已撤销：{tool} 运行前会再次询问。</translation>
        </message>
        <message>
            <source>This chat will ask again.</source>
            <translation>此聊天将再次询问。</translation>
        </message>
    </context>
    <context>
        <name>TopBar</name>
        <message>
            <source>Provider</source>
            <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app's name (it is in the window's title).</extracomment>
            <translation>提供商</translation>
        </message>
        <message>
            <source>The provider of this chat</source>
            <translation>此聊天的提供商</translation>
        </message>
        <message>
            <source>No provider</source>
            <translation>无提供商</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Chat settings: model, temperature, max tokens, reasoning</source>
            <translation>聊天设置：模型、温度、最大令牌数、推理</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>聊天设置</translation>
        </message>
        <message>
            <source>Providers…</source>
            <translation>提供商…</translation>
        </message>
        <message>
            <source>Add or edit providers</source>
            <translation>添加或编辑提供商</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>提供商</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>工具活动</translation>
        </message>
        <message>
            <source>Show or hide the tool activity panel (Ctrl+B)</source>
            <translation>显示或隐藏工具活动面板（Ctrl+B）</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{provider} 上的 {model}</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>选择模型…</translation>
        </message>
        <message>
            <source>Click to search and switch models</source>
            <translation>点击搜索并切换模型</translation>
        </message>
        <message>
            <source> (this chat sets its own)</source>
            <translation>（此聊天有自己的设置）</translation>
        </message>
        <message>
            <source>no provider</source>
            <translation>无提供商</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>无模型</translation>
        </message>
    </context>
    <context>
        <name>TrustFields</name>
        <message>
            <source>Run commands in a sandbox</source>
            <translation>在沙盒中运行命令</translation>
        </message>
        <message>
            <source>Commands see the system read-only, may write only in the workspace and a private temporary folder, and never see this app's data (Linux: bubblewrap; macOS: sandbox-exec). Without a sandbox on this system they run as you.</source>
            <translation>命令以只读方式看到系统，只能写入工作区和私有临时文件夹，且永远看不到本应用的数据（Linux：bubblewrap；macOS：sandbox-exec）。如果此系统没有沙盒，命令将以您的身份运行。</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>允许沙盒中的命令使用网络</translation>
        </message>
        <message>
            <source>Off: a command cannot reach the internet or servers on this computer (downloads, package installs and git push fail).</source>
            <translation>关闭时：命令无法访问互联网或本机上的服务器（下载、安装软件包和 git push 会失败）。</translation>
        </message>
        <message>
            <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
            <translation>例如 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</translation>
        </message>
        <message>
            <source>Local or private hosts fetch_url may read</source>
            <translation>fetch_url 可读取的本地或私有主机</translation>
        </message>
        <message>
            <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
            <translation>fetch_url 会拒绝访问本机、本地网络和云元数据地址，防止网页诱使助手读取它们。此处列出的主机、.域名 后缀、地址或网络将被允许。</translation>
        </message>
        <message>
            <source>e.g. JAVA_HOME, NODE_*</source>
            <translation>例如 JAVA_HOME, NODE_*</translation>
        </message>
        <message>
            <source>Environment variables run_command passes on</source>
            <translation>run_command 传递的环境变量</translation>
        </message>
        <message>
            <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
            <translation>命令会获得一个干净的环境（PATH、HOME、语言等）。可在此列出更多变量，或以 * 结尾的前缀；前缀永远不会带入密钥、令牌或密码。</translation>
        </message>
        <message>
            <source>Hosts fetch_url may read:</source>
            <translation>fetch_url 可读取的主机：</translation>
        </message>
        <message>
            <source>Variables for commands:</source>
            <translation>命令使用的变量：</translation>
        </message>
        <message>
            <source>Not a host, address or network: {entries}</source>
            <translation>不是主机、地址或网络：{entries}</translation>
        </message>
        <message>
            <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
            <translation>不是变量名（字母、数字和 _，或以 * 结尾的前缀）：{entries}</translation>
        </message>
    </context>
    <context>
        <name>TurnStatus</name>
        <message>
            <source>Rate limited</source>
            <translation>受速率限制</translation>
        </message>
        <message>
            <source>Overloaded</source>
            <translation>过载</translation>
        </message>
        <message>
            <source>Service unavailable</source>
            <translation>服务不可用</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>超时</translation>
        </message>
        <message>
            <source>Server error ({reason})</source>
            <translation>服务器错误（{reason}）</translation>
        </message>
        <message>
            <source>Could not connect ({reason})</source>
            <translation>无法连接（{reason}）</translation>
        </message>
        <message>
            <source>retry {number}</source>
            <translation>第 {number} 次重试</translation>
        </message>
        <message>
            <source>retrying in {seconds} s</source>
            <translation>{seconds} 秒后重试</translation>
        </message>
        <message>
            <source>retrying now</source>
            <translation>正在重试</translation>
        </message>
        <message>
            <source>{reason} — {wait} ({count})</source>
            <translation>{reason} — {wait}（{count}）</translation>
        </message>
        <message>
            <source>Answer status</source>
            <translation>回答状态</translation>
        </message>
        <message>
            <source>Thinking…  </source>
            <translation>思考中…  </translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Stop this answer</source>
            <translation>停止此回答</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>允许一次</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>现在运行此调用；下次再询问</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>在此聊天中允许</translation>
        </message>
        <message>
            <source>Do not ask again in this chat</source>
            <translation>在此聊天中不再询问</translation>
        </message>
        <message>
            <source>Always allow</source>
            <translation>始终允许</translation>
        </message>
        <message>
            <source>Never ask again, in any chat</source>
            <translation>在任何聊天中都不再询问</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told</source>
            <translation>不运行；会告知助手</translation>
        </message>
        <message>
            <source>Allow network for this chat</source>
            <translation>允许此聊天使用网络</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on</source>
            <translation>此聊天的命令从现在起可以使用网络</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Let the assistant use tools for more rounds</source>
            <translation>允许助手继续使用工具更多轮</translation>
        </message>
        <message>
            <source>Stop here</source>
            <translation>到此为止</translation>
        </message>
        <message>
            <source>End the answer with what it has so far</source>
            <translation>以目前已有的内容结束回答</translation>
        </message>
        <message>
            <source>Waiting for your approval: {tool}</source>
            <translation>等待你的批准：{tool}</translation>
        </message>
        <message>
            <source>Waiting for your approval ({number} of {count}): {tool}</source>
            <translation>等待你的批准（第 {number} 个，共 {count} 个）：{tool}</translation>
        </message>
        <message numerus="yes">
            <source>The assistant has used tools for %n round(s). Let it continue?</source>
            <translation>
                <numerusform>助手已使用工具 %n 轮。让它继续吗？</numerusform>
            </translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>正在等待此提供商的另一个回答完成…</translation>
        </message>
        <message>
            <source>Also waiting ({number} of {count}): {tool}</source>
            <translation>同样在等待（第 {number} 个，共 {count} 个）：{tool}</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>思考中</translation>
        </message>
    </context>
    <context>
        <name>UndoBar</name>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Bring the chat back from the trash</source>
            <translation>从回收站恢复聊天</translation>
        </message>
        <message>
            <source>Moved “{title}” to the trash</source>
            <translation>已将“{title}”移到回收站</translation>
        </message>
        <message numerus="yes">
            <source>Moved %n chats to the trash</source>
            <translation>
                <numerusform>已将 %n 个聊天移到回收站</numerusform>
            </translation>
        </message>
        <message>
            <source>Undo this turn's changes</source>
            <translation>撤销本轮的更改</translation>
        </message>
        <message>
            <source>Put back the files the assistant wrote in its last turn in this chat</source>
            <translation>还原助手在此聊天上一轮中写入的文件</translation>
        </message>
        <message numerus="yes">
            <source>…and %n more</source>
            <translation>
                <numerusform>…以及另外 %n 个</numerusform>
            </translation>
        </message>
        <message>
            <source>Put back these files as they were before the assistant's last turn? Files it created are deleted.

{files}</source>
            <translation>将这些文件还原到助手上一轮之前的状态？它创建的文件会被删除。

{files}</translation>
        </message>
        <message>
            <source>Nothing was undone: files {reason}</source>
            <translation>未撤销任何内容：文件 {reason}</translation>
        </message>
        <message>
            <source>Nothing was undone: {reason}</source>
            <translation>未撤销任何内容：{reason}</translation>
        </message>
        <message numerus="yes">
            <source>Undone: %n file(s) put back</source>
            <translation>
                <numerusform>已撤销：还原了 %n 个文件</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n deleted</source>
            <translation>
                <numerusform>已删除 %n 个</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UpdateDialog</name>
        <message>
            <source>Update available</source>
            <translation>有可用更新</translation>
        </message>
        <message>
            <source>Version {new} is available (you have {current}).</source>
            <translation>版本 {new} 已可用（当前为 {current}）。</translation>
        </message>
        <message>
            <source>No release notes.</source>
            <translation>没有发布说明。</translation>
        </message>
        <message>
            <source>Release notes</source>
            <translation>发布说明</translation>
        </message>
        <message>
            <source>Download: {file}</source>
            <translation>下载：{file}</translation>
        </message>
        <message>
            <source>No installer for this system in this release: the release page lists what there is.</source>
            <translation>此版本没有适用于本系统的安装程序：发布页面列出了可用的内容。</translation>
        </message>
        <message>
            <source>&amp;Download</source>
            <translation>下载(&amp;D)</translation>
        </message>
        <message>
            <source>Release &amp;page</source>
            <translation>发布页面(&amp;P)</translation>
        </message>
    </context>
    <context>
        <name>UpdateNotice</name>
        <message>
            <source>Version {version} is available</source>
            <translation>版本 {version} 已可用</translation>
        </message>
        <message>
            <source>See what is new and download it</source>
            <translation>查看新内容并下载</translation>
        </message>
    </context>
    <context>
        <name>UsagePage</name>
        <message>
            <source>Period</source>
            <extracomment>One plain thread for the page's reads (not the event loop's default executor: under qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).</extracomment>
            <translation>时间段</translation>
        </message>
        <message>
            <source>Last 7 days</source>
            <translation>过去 7 天</translation>
        </message>
        <message>
            <source>Last 30 days</source>
            <translation>过去 30 天</translation>
        </message>
        <message>
            <source>All time</source>
            <translation>全部时间</translation>
        </message>
        <message>
            <source>Usage per model</source>
            <translation>各模型用量</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Answers</source>
            <translation>回答数</translation>
        </message>
        <message>
            <source>Tokens in</source>
            <translation>输入令牌</translation>
        </message>
        <message>
            <source>Tokens out</source>
            <translation>输出令牌</translation>
        </message>
        <message>
            <source>Cost</source>
            <translation>费用</translation>
        </message>
        <message>
            <source>Median tok/s</source>
            <translation>中位数 令牌/秒</translation>
        </message>
        <message>
            <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
            <translation>统计所有已保存的回答，包括每个聊天和版本（含回收站）。费用为提供商报告的数值，否则根据模型价格估算（设置 → 模型价格）；“—”：价格未知，“≥”：部分令牌没有价格。速度为回答流式传输时每秒的令牌数。</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>正在读取…</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>总计</translation>
        </message>
    </context>
    <context>
        <name>UsageText</name>
        <message>
            <source>{input} in · {output} out</source>
            <extracomment>Where a view gets the user's model prices from (they change in Settings).</extracomment>
            <translation>输入 {input} · 输出 {output}</translation>
        </message>
        <message>
            <source> ({count} reasoning)</source>
            <translation>（推理 {count}）</translation>
        </message>
        <message>
            <source> · {seconds} s</source>
            <translation> · {seconds} 秒</translation>
        </message>
        <message>
            <source> · {rate} tok/s</source>
            <translation> · {rate} 令牌/秒</translation>
        </message>
        <message>
            <source>Tokens for this answer: prompt in, generated out</source>
            <translation>此回答的令牌：输入为提示词，输出为生成内容</translation>
        </message>
        <message>
            <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
            <translation>≈：根据文本估算（提供商未发送计数：回答被停止或失败）</translation>
        </message>
        <message>
            <source>First token after {seconds} s</source>
            <translation>首个令牌用时 {seconds} 秒</translation>
        </message>
        <message>
            <source>{rate} tokens per second</source>
            <translation>每秒 {rate} 个令牌</translation>
        </message>
        <message>
            <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
            <translation>费用约 {cost}（由提供商报告，否则根据模型价格）</translation>
        </message>
        <message>
            <source>No price known for this model (Settings → Model prices)</source>
            <translation>此模型价格未知（设置 → 模型价格）</translation>
        </message>
        <message>
            <source>tokens {input} in · {output} out</source>
            <translation>令牌 输入 {input} · 输出 {output}</translation>
        </message>
        <message>
            <source> ({count} thinking)</source>
            <translation>（思考 {count}）</translation>
        </message>
        <message>
            <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
            <translation>此聊天：输入 {input} 个令牌（缓存 {cached}），输出 {output} 个令牌（思考 {thinking}）</translation>
        </message>
        <message>
            <source>, about {cost}</source>
            <translation>，约 {cost}</translation>
        </message>
        <message>
            <source>, no price known for this model</source>
            <translation>，此模型价格未知</translation>
        </message>
    </context>
    <context>
        <name>VirtualColumn</name>
        <message>
            <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
            <translation>随便问点什么。按 Enter 发送，Shift+Enter 换行。</translation>
        </message>
        <message>
            <source>↓  Jump to latest</source>
            <translation>↓  跳到最新</translation>
        </message>
    </context>
    <context>
        <name>Voice</name>
        <message>
            <source>No microphone could be opened. Connect one, or allow this app to use the microphone in the system's privacy settings.</source>
            <translation>无法打开麦克风。请连接麦克风，或在系统隐私设置中允许此应用使用麦克风。</translation>
        </message>
        <message>
            <source>No sound output could be opened, so nothing can be read aloud here.</source>
            <translation>无法打开声音输出，因此这里无法朗读。</translation>
        </message>
        <message>
            <source>This system has no speech engine. Install espeak-ng, or set a speech model in Settings.</source>
            <translation>此系统没有语音引擎。请安装 espeak-ng，或在设置中设置语音模型。</translation>
        </message>
        <message>
            <source>Set a transcription model in Settings to dictate.</source>
            <translation>请在设置中设置转写模型以使用听写。</translation>
        </message>
        <message>
            <source>This answer has no text to read aloud.</source>
            <translation>此回答没有可朗读的文字。</translation>
        </message>
        <message>
            <source>The speech audio could not be played.</source>
            <translation>无法播放语音。</translation>
        </message>
        <message>
            <source>Nothing was recorded.</source>
            <translation>没有录到任何内容。</translation>
        </message>
    </context>
    <context>
        <name>VoiceSettings</name>
        <message>
            <source>Provider that reads aloud</source>
            <translation>负责朗读的提供商</translation>
        </message>
        <message>
            <source>Speech model</source>
            <translation>语音模型</translation>
        </message>
        <message>
            <source>Empty: the system's voice. e.g. gpt-4o-mini-tts</source>
            <translation>留空：使用系统语音。例如 gpt-4o-mini-tts</translation>
        </message>
        <message>
            <source>Voice</source>
            <translation>声音</translation>
        </message>
        <message>
            <source>Provider that writes dictation</source>
            <translation>负责转写听写的提供商</translation>
        </message>
        <message>
            <source>Transcription model</source>
            <translation>转写模型</translation>
        </message>
        <message>
            <source>Empty: no dictation. e.g. whisper-1</source>
            <translation>留空：不使用听写。例如 whisper-1</translation>
        </message>
        <message>
            <source>Read aloud on</source>
            <translation>朗读使用</translation>
        </message>
        <message>
            <source>Dictation on</source>
            <translation>听写使用</translation>
        </message>
        <message>
            <source>The chat's provider</source>
            <translation>对话的提供商</translation>
        </message>
    </context>
    <context>
        <name>WebSearchSettings</name>
        <message>
            <source>Search service</source>
            <translation>搜索服务</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
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
            <translation>搜索服务地址</translation>
        </message>
        <message>
            <source>Search service API key</source>
            <translation>搜索服务 API 密钥</translation>
        </message>
        <message>
            <source>Chats with "Search the web" on use the provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
            <translation>开启“搜索网络”的聊天会优先使用提供商自带的搜索（OpenAI Responses、Anthropic、Gemini、OpenRouter）。其他提供商会获得一个使用此处所选服务的 web_search 工具。SearXNG 必须允许 json 格式（在其 settings.yml 中设置 search: formats: [html, json]）。</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>服务</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>地址</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>研究</translation>
        </message>
        <message>
            <source>Research: search rounds at most</source>
            <translation>研究：最多搜索轮数</translation>
        </message>
        <message>
            <source> min</source>
            <translation> 分钟</translation>
        </message>
        <message>
            <source>Research: minutes at most</source>
            <translation>研究：最多分钟数</translation>
        </message>
        <message>
            <source>No ceiling</source>
            <translation>无上限</translation>
        </message>
        <message>
            <source>Research: cost ceiling in US dollars</source>
            <translation>研究：费用上限（美元）</translation>
        </message>
        <message>
            <source>Search rounds</source>
            <translation>搜索轮数</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>时间上限</translation>
        </message>
        <message>
            <source>Cost ceiling</source>
            <translation>费用上限</translation>
        </message>
        <message>
            <source>A research run stops at whichever limit comes first and says so in its report. The cost counts only models with a known price (Model prices).</source>
            <translation>研究在最先达到的上限处停止，并在报告中说明。费用只计算价格已知的模型（模型价格）。</translation>
        </message>
        <message>
            <source>https://searx.example.org</source>
            <translation>https://searx.example.org</translation>
        </message>
        <message>
            <source>Default: the service's API</source>
            <translation>默认：该服务的 API</translation>
        </message>
        <message>
            <source>SearXNG needs the address of an instance.</source>
            <translation>SearXNG 需要一个实例的地址。</translation>
        </message>
    </context>
    <context>
        <name>WelcomePage</name>
        <message>
            <source>Connect a model provider</source>
            <translation>连接模型提供商</translation>
        </message>
        <message>
            <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
            <translation>Assista 可连接兼容 OpenAI 的服务：使用你 API 密钥的云提供商，或 LM Studio 等本地服务器。选择一个开始：</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>添加 {name}</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Add a provider</source>
            <translation>添加提供商</translation>
        </message>
        <message>
            <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
            <translation>OpenAI、Anthropic、Gemini、OpenRouter、Ollama、LM Studio 或任何兼容 OpenAI 的服务器。密钥保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>添加提供商…</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
            <translation>在模型选择器中输入即可搜索你的提供商提供的所有模型；为常用的模型加星标。</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>选择模型…</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>询问</translation>
        </message>
        <message>
            <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
            <translation>在下方输入并按 Enter。选择工作区文件夹后，助手就能读取和编辑其中的文件 — 更改任何内容前都会先询问。</translation>
        </message>
        <message>
            <source>Write a message</source>
            <translation>写消息</translation>
        </message>
        <message>
            <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
            <translation>&lt;h2&gt;欢迎使用 Assista&lt;/h2&gt;</translation>
        </message>
        <message>
            <source>Three steps to your first answer:</source>
            <translation>三步得到你的第一个回答：</translation>
        </message>
        <message>
            <source>Or start from a &lt;a href="starters"&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
            <translation>或从&lt;a href="starters"&gt;现成的助手&lt;/a&gt;开始：翻译、程序员、编辑…</translation>
        </message>
        <message>
            <source>Starter assistants</source>
            <translation>入门助手</translation>
        </message>
        <message>
            <source>Step {number} done</source>
            <translation>第 {number} 步已完成</translation>
        </message>
        <message>
            <source>Step {number}</source>
            <translation>第 {number} 步</translation>
        </message>
    </context>
    <context>
        <name>_PathRow</name>
        <message>
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
    </context>
</TS>

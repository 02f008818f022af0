<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP" sourcelanguage="en">
    <context>
        <name>AboutDialog</name>
        <message>
            <source>No licence text is shipped with this component; its licence is named above.</source>
            <translation>このコンポーネントにはライセンス本文が含まれていません。ライセンス名は上に記載されています。</translation>
        </message>
        <message>
            <source>About {app}</source>
            <extracomment>Native libraries a bundle may carry: (file name prefix, component, licence).</extracomment>
            <translation>{app} について</translation>
        </message>
        <message>
            <source>A desktop chat client for large language models.</source>
            <translation>大規模言語モデルのためのデスクトップチャットクライアント。</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>ライセンス: {licence}</translation>
        </message>
        <message>
            <source>{app} is built with these components:</source>
            <translation>{app} は次のコンポーネントで構築されています:</translation>
        </message>
        <message>
            <source>Bundled components</source>
            <translation>同梱コンポーネント</translation>
        </message>
        <message>
            <source>Component</source>
            <translation>コンポーネント</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>バージョン</translation>
        </message>
        <message>
            <source>Licence</source>
            <translation>ライセンス</translation>
        </message>
        <message>
            <source>Licence text</source>
            <translation>ライセンス本文</translation>
        </message>
        <message>
            <source>Select a component to read its licence.</source>
            <translation>コンポーネントを選ぶとライセンスを表示します。</translation>
        </message>
    </context>
    <context>
        <name>AnswerImage</name>
        <message>
            <source>Image {width}×{height}</source>
            <translation>画像 {width}×{height}</translation>
        </message>
        <message>
            <source>Save as…</source>
            <translation>名前を付けて保存…</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>コピー</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>開く</translation>
        </message>
        <message>
            <source>Save image</source>
            <translation>画像を保存</translation>
        </message>
        <message>
            <source>Images (*.{suffix})</source>
            <translation>画像 (*.{suffix})</translation>
        </message>
        <message>
            <source>The image could not be saved: {reason}</source>
            <translation>画像を保存できませんでした: {reason}</translation>
        </message>
        <message>
            <source>The image could not be opened: {reason}</source>
            <translation>画像を開けませんでした: {reason}</translation>
        </message>
        <message>
            <source>No application opens images.</source>
            <translation>画像を開けるアプリケーションがありません。</translation>
        </message>
    </context>
    <context>
        <name>AnswerImages</name>
        <message>
            <source>Image not shown: it is larger than the app allows (10 MB, 8192×8192 pixels).</source>
            <extracomment>The widest an answer's image is shown (a click on Open shows it whole). Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).</extracomment>
            <translation>画像を表示できません: アプリの上限（10 MB、8192×8192 ピクセル）を超えています。</translation>
        </message>
        <message>
            <source>Image not shown: the provider sent a link instead of the picture.</source>
            <translation>画像を表示できません: プロバイダーが画像ではなくリンクを送信しました。</translation>
        </message>
        <message>
            <source>Image not shown: it could not be downloaded.</source>
            <translation>画像を表示できません: ダウンロードできませんでした。</translation>
        </message>
        <message>
            <source>The provider could not make the image.</source>
            <translation>プロバイダーは画像を作成できませんでした。</translation>
        </message>
        <message>
            <source>Image not shown: the data is not a picture the app can show (PNG, JPEG, GIF or WebP).</source>
            <translation>画像を表示できません: アプリで表示できる画像（PNG、JPEG、GIF、WebP）ではありません。</translation>
        </message>
        <message>
            <source>Image not shown: its data is broken.</source>
            <translation>画像を表示できません: データが壊れています。</translation>
        </message>
    </context>
    <context>
        <name>AppTray</name>
        <message>
            <source>{app} tray menu</source>
            <translation>{app} トレイメニュー</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>新しいチャット(&amp;N)</translation>
        </message>
        <message>
            <source>&amp;Quick ask…</source>
            <translation>クイック質問(&amp;Q)…</translation>
        </message>
        <message>
            <source>&amp;Hide window</source>
            <translation>ウィンドウを隠す(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>終了(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Show window</source>
            <translation>ウィンドウを表示(&amp;S)</translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>… {count} more lines</source>
            <translation>… ほか {count} 行</translation>
        </message>
        <message>
            <source>(empty diff)</source>
            <translation>(差分なし)</translation>
        </message>
        <message>
            <source>built-in tool</source>
            <translation>組み込みツール</translation>
        </message>
        <message>
            <source>MCP server “{server}”</source>
            <translation>MCP サーバー「{server}」</translation>
        </message>
        <message>
            <source>Changes</source>
            <translation>変更内容</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>コマンド</translation>
        </message>
        <message>
            <source>URL</source>
            <translation>URL</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>引数</translation>
        </message>
        <message>
            <source>Approval needed: {tool}</source>
            <translation>承認が必要: {tool}</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>承認が必要です</translation>
        </message>
        <message>
            <source>Chat: {title}</source>
            <translation>チャット: {title}</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>新しいチャット</translation>
        </message>
        <message>
            <source>Show the chat that asks</source>
            <translation>確認を求めているチャットを表示</translation>
        </message>
        <message>
            <source>Show chat {title}</source>
            <translation>チャット {title} を表示</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>プレビュー</translation>
        </message>
        <message>
            <source>Reason for denying (optional)</source>
            <translation>拒否の理由(任意)</translation>
        </message>
        <message>
            <source>If you deny, this reason is sent to the assistant</source>
            <translation>拒否した場合、この理由がアシスタントに送られます</translation>
        </message>
        <message>
            <source>Reason for denying</source>
            <translation>拒否の理由</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>今回の呼び出しを実行し、次回はまた確認します</translation>
        </message>
        <message>
            <source>Run {tool} without asking in this chat</source>
            <translation>このチャットでは確認せずに {tool} を実行します</translation>
        </message>
        <message>
            <source>Never ask again for {tool}, in any chat (revoke it in Settings → Tools)</source>
            <translation>どのチャットでも {tool} について今後確認しません(設定 → ツールで取り消せます)</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told (with your reason)</source>
            <translation>実行しません。アシスタントに(理由とともに)伝えます</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on (forget it in Settings → Tools)</source>
            <translation>このチャットのコマンドは今後ネットワークを使えます（設定 → ツールで取り消せます）</translation>
        </message>
        <message>
            <source>Run this command with the network; ask again next time</source>
            <translation>このコマンドをネットワークありで実行し、次回も確認する</translation>
        </message>
        <message>
            <source>Full arguments</source>
            <translation>すべての引数</translation>
        </message>
        <message>
            <source>Allow network for this &amp;chat</source>
            <translation>このチャットでネットワークを許可(&amp;C)</translation>
        </message>
        <message>
            <source>Allow &amp;once</source>
            <translation>今回だけ許可(&amp;O)</translation>
        </message>
        <message>
            <source>Allow for this &amp;chat</source>
            <translation>このチャットで許可(&amp;C)</translation>
        </message>
        <message>
            <source>Al&amp;ways allow</source>
            <translation>常に許可(&amp;W)</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>拒否(&amp;D)</translation>
        </message>
        <message>
            <source>Allowed once</source>
            <translation>今回だけ許可しました</translation>
        </message>
        <message>
            <source>Network allowed for this chat's commands</source>
            <translation>このチャットのコマンドにネットワークを許可しました</translation>
        </message>
        <message>
            <source>Allowed for this chat</source>
            <translation>このチャットで許可済み</translation>
        </message>
        <message>
            <source>Always allowed</source>
            <translation>常に許可</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>拒否しました</translation>
        </message>
        <message>
            <source>Always allowed within {scope}</source>
            <translation>{scope} の範囲で常に許可</translation>
        </message>
    </context>
    <context>
        <name>ApprovalTitle</name>
        <message>
            <source>Fetch {host}</source>
            <translation>{host} を取得</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>コマンドを実行</translation>
        </message>
        <message>
            <source>Run a command in {folder}</source>
            <translation>{folder} でコマンドを実行</translation>
        </message>
        <message>
            <source>Create {path}</source>
            <translation>{path} を作成</translation>
        </message>
        <message>
            <source>Overwrite {path}</source>
            <translation>{path} を上書き</translation>
        </message>
        <message>
            <source>Edit {path}</source>
            <translation>{path} を編集</translation>
        </message>
        <message>
            <source>Save a memory</source>
            <translation>メモリーを保存</translation>
        </message>
        <message>
            <source>Allow network for this chat's commands</source>
            <translation>このチャットのコマンドにネットワークを許可</translation>
        </message>
        <message>
            <source>Sandboxed · no network · writes only in the workspace</source>
            <translation>サンドボックス内 · ネットワークなし · 書き込みはワークスペースのみ</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed · writes only in the workspace</source>
            <translation>サンドボックス内 · ネットワーク許可 · 書き込みはワークスペースのみ</translation>
        </message>
        <message>
            <source>Sandboxed · network allowed for this chat · writes only in the workspace</source>
            <translation>サンドボックス内 · このチャットではネットワーク許可 · 書き込みはワークスペース内のみ</translation>
        </message>
        <message>
            <source>Not sandboxed: the sandbox is turned off in Settings → Tools</source>
            <translation>サンドボックスなし: 設定 → ツール でサンドボックスがオフになっています</translation>
        </message>
        <message>
            <source>Not sandboxed: this system offers no sandbox (install bubblewrap)</source>
            <translation>サンドボックスなし: このシステムにはサンドボックスがありません（bubblewrap をインストールしてください）</translation>
        </message>
    </context>
    <context>
        <name>AssistantForm</name>
        <message>
            <source>e.g. Code reviewer</source>
            <translation>例: コードレビュアー</translation>
        </message>
        <message>
            <source>Optional: what it is for</source>
            <translation>任意: 用途</translation>
        </message>
        <message>
            <source>The system prompt of chats started from it (empty: the default system prompt)</source>
            <translation>このアシスタントで始めたチャットのシステムプロンプト(空欄なら既定のシステムプロンプト)</translation>
        </message>
        <message>
            <source>Default provider</source>
            <translation>既定のプロバイダー</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>既定のモデル</translation>
        </message>
        <message>
            <source>The provider's default model</source>
            <translation>プロバイダーの既定モデル</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>設定する</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>これらのツールのみ</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>これらのツールのみ(未指定ならアプリのツール設定)</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>有効なツール</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名前</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>説明</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>システムプロンプト</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>The provider chosen in the window</source>
            <translation>ウィンドウで選んだプロバイダー</translation>
        </message>
        <message>
            <source>(removed provider {id})</source>
            <translation>(削除されたプロバイダー {id})</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>スキル</translation>
        </message>
        <message>
            <source>Skills offered to the chats that use this assistant (Settings → Skills adds them)</source>
            <translation>このアシスタントを使うチャットに提供するスキル（設定 → スキル で追加）</translation>
        </message>
        <message>
            <source>No skills found (Settings → Skills adds them).</source>
            <translation>スキルが見つかりません（設定 → スキル で追加できます）。</translation>
        </message>
    </context>
    <context>
        <name>AssistantGallery</name>
        <message>
            <source>Starter assistants</source>
            <translation>スターターアシスタント</translation>
        </message>
        <message>
            <source>Ready-made assistants to start from. Add the ones you want: each becomes your own, to edit or delete in Assistants.</source>
            <translation>すぐに使えるアシスタントです。必要なものを追加すると自分のアシスタントになり、「アシスタント」で編集や削除ができます。</translation>
        </message>
    </context>
    <context>
        <name>AssistantPicker</name>
        <message>
            <source>Assistant</source>
            <translation>アシスタント</translation>
        </message>
        <message>
            <source>The assistant of this chat: its system prompt, model, temperature and tools</source>
            <translation>このチャットのアシスタント: システムプロンプト、モデル、温度、ツール</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>アシスタントなし</translation>
        </message>
        <message>
            <source>Manage assistants…</source>
            <translation>アシスタントを管理…</translation>
        </message>
    </context>
    <context>
        <name>AssistantsDialog</name>
        <message>
            <source>Assistants</source>
            <translation>アシスタント</translation>
        </message>
        <message>
            <source>New</source>
            <translation>新規</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>複製</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>上へ移動</translation>
        </message>
        <message>
            <source>Move up (drag to reorder)</source>
            <translation>上へ移動(ドラッグでも並べ替え可)</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>下へ移動</translation>
        </message>
        <message>
            <source>Move down (drag to reorder)</source>
            <translation>下へ移動(ドラッグでも並べ替え可)</translation>
        </message>
        <message>
            <source>Starter assistants…</source>
            <translation>スターターアシスタント…</translation>
        </message>
        <message>
            <source>Add ready-made assistants (translator, programmer, editor…) to edit as your own</source>
            <translation>既製のアシスタント(翻訳、プログラマー、編集者…)を追加して自分用に編集します</translation>
        </message>
        <message>
            <source>No assistants yet. Fill in the form and press Save, or add ready-made ones with Starter assistants.</source>
            <translation>アシスタントはまだありません。フォームに入力して保存するか、「スターターアシスタント」から既製のものを追加してください。</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>閉じる</translation>
        </message>
        <message>
            <source>New assistant</source>
            <translation>新しいアシスタント</translation>
        </message>
        <message>
            <source>New assistant {number}</source>
            <translation>新しいアシスタント {number}</translation>
        </message>
        <message>
            <source>Delete assistant</source>
            <translation>アシスタントを削除</translation>
        </message>
        <message>
            <source>Delete the assistant “{name}”? Chats started from it keep their messages.</source>
            <translation>アシスタント「{name}」を削除しますか? このアシスタントで始めたチャットのメッセージは残ります。</translation>
        </message>
    </context>
    <context>
        <name>AttachFilters</name>
        <message>
            <source>Images</source>
            <translation>画像</translation>
        </message>
        <message>
            <source>PDF documents</source>
            <translation>PDF 文書</translation>
        </message>
        <message>
            <source>Word documents</source>
            <translation>Word 文書</translation>
        </message>
        <message>
            <source>Spreadsheets</source>
            <translation>スプレッドシート</translation>
        </message>
        <message>
            <source>Presentations</source>
            <translation>プレゼンテーション</translation>
        </message>
        <message>
            <source>EPUB books</source>
            <translation>EPUB 書籍</translation>
        </message>
        <message>
            <source>Web pages</source>
            <translation>ウェブページ</translation>
        </message>
        <message>
            <source>Text and source code</source>
            <translation>テキストとソースコード</translation>
        </message>
        <message>
            <source>All supported files ({patterns})</source>
            <translation>サポートされているすべてのファイル ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>すべてのファイル (*)</translation>
        </message>
    </context>
    <context>
        <name>AttachmentCard</name>
        <message>
            <source>{name} is no longer at {path}, and the chat keeps only its text.</source>
            <translation>{name} は {path} にもうありません。チャットにはそのテキストだけが残っています。</translation>
        </message>
        <message>
            <source>{name} could not be opened: {reason}</source>
            <translation>{name} を開けませんでした: {reason}</translation>
        </message>
        <message>
            <source>No application opens {name}.</source>
            <translation>{name} を開けるアプリケーションがありません。</translation>
        </message>
        <message>
            <source>Open {name}</source>
            <translation>{name} を開く</translation>
        </message>
        <message>
            <source>Open {file}</source>
            <translation>{file} を開く</translation>
        </message>
        <message>
            <source>Show extracted text</source>
            <translation>抽出したテキストを表示</translation>
        </message>
        <message>
            <source>Extracted text of {name}</source>
            <translation>{name} の抽出テキスト</translation>
        </message>
        <message>
            <source>Hide extracted text</source>
            <translation>抽出したテキストを隠す</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove {name}</source>
            <translation>{name} を削除</translation>
        </message>
    </context>
    <context>
        <name>BodyMenu</name>
        <message>
            <source>Copy</source>
            <translation>コピー</translation>
        </message>
        <message>
            <source>Copy code block</source>
            <translation>コードブロックをコピー</translation>
        </message>
        <message>
            <source>Copy link address</source>
            <translation>リンクのアドレスをコピー</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>すべて選択</translation>
        </message>
    </context>
    <context>
        <name>BranchBar</name>
        <message>
            <source>Edit</source>
            <translation>編集</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept)</source>
            <translation>このメッセージを編集して再送信(元のメッセージは残ります)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>再生成</translation>
        </message>
        <message>
            <source>Answer again (this answer is kept)</source>
            <translation>もう一度回答させる(この回答は残ります)</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>前のバージョン</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>次のバージョン</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>{count} 件中 {index} 番目のバージョン</translation>
        </message>
    </context>
    <context>
        <name>BundleDialog</name>
        <message>
            <source>{path} is not a file.</source>
            <translation>{path} はファイルではありません。</translation>
        </message>
        <message>
            <source>The extension is refused: {reason}</source>
            <translation>拡張機能は拒否されました：{reason}</translation>
        </message>
        <message>
            <source>An MCP server named {name} is already installed.</source>
            <translation>{name} という名前の MCP サーバーは既にインストールされています。</translation>
        </message>
        <message>
            <source>{field} is required.</source>
            <translation>{field} は必須です。</translation>
        </message>
        <message>
            <source>{field} is not a valid value.</source>
            <translation>{field} の値が無効です。</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>拡張機能をインストール</translation>
        </message>
        <message>
            <source>{name} {version}</source>
            <translation>{name} {version}</translation>
        </message>
        <message>
            <source>By {author}. {description}</source>
            <translation>作成者：{author}。{description}</translation>
        </message>
        <message>
            <source>It runs on this computer as the MCP server {name}, with your permissions; its tools ask before they act unless you allow them. Secrets go to the keyring.</source>
            <translation>このコンピューター上で MCP サーバー {name} としてあなたの権限で動作します。許可しない限り、ツールは実行前に確認します。シークレットはキーリングに保存されます。</translation>
        </message>
        <message>
            <source>Install</source>
            <translation>インストール</translation>
        </message>
        <message>
            <source>The extension could not be installed: {reason}</source>
            <translation>拡張機能をインストールできませんでした：{reason}</translation>
        </message>
    </context>
    <context>
        <name>CallProgress</name>
        <message>
            <source>Progress</source>
            <translation>進行状況</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>A temporary chat has one version of each message: edit and regenerate are not available.</source>
            <translation>一時チャットでは各メッセージのバージョンは 1 つだけです。編集と再生成は使えません。</translation>
        </message>
        <message>
            <source>This chat is answering in another Assista process (assista ask); try again once that answer has finished.</source>
            <translation>このチャットは別の Assista プロセス（assista ask）で回答中です。その回答が終わってからもう一度お試しください。</translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>このプロバイダーの別の回答が終わるのを待っています…</translation>
        </message>
        <message>
            <source>Memory removed.</source>
            <translation>メモリーを削除しました。</translation>
        </message>
        <message>
            <source>This memory was already deleted.</source>
            <translation>このメモリーはすでに削除されています。</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Assista JSON, lossless (*.json)</source>
            <translation>Assista JSON(無損失) (*.json)</translation>
        </message>
        <message>
            <source>Markdown, readable (*.md)</source>
            <translation>Markdown(読みやすい形式) (*.md)</translation>
        </message>
        <message>
            <source>Chat exports (*.json *.zip);;Assista JSON export (*.json);;ChatGPT export (conversations.json *.zip);;All files (*)</source>
            <translation>チャットのエクスポート (*.json *.zip);;Assista JSON エクスポート (*.json);;ChatGPT エクスポート (conversations.json *.zip);;すべてのファイル (*)</translation>
        </message>
    </context>
    <context>
        <name>ChatKnowledgeButton</name>
        <message>
            <source>Knowledge bases of this chat</source>
            <translation>このチャットのナレッジベース</translation>
        </message>
        <message>
            <source>The model can search the checked knowledge bases</source>
            <translation>チェックしたナレッジベースをモデルが検索できます</translation>
        </message>
        <message>
            <source>None</source>
            <translation>なし</translation>
        </message>
        <message>
            <source>No knowledge bases yet (Knowledge…)</source>
            <translation>ナレッジベースはまだありません(ナレッジ…)</translation>
        </message>
    </context>
    <context>
        <name>ChatPane</name>
        <message>
            <source>Delete messages</source>
            <translation>メッセージを削除</translation>
        </message>
        <message>
            <source>Delete this message and everything after it? Other versions below it are deleted too. This cannot be undone.</source>
            <translation>このメッセージとそれ以降をすべて削除しますか? その下にある別のバージョンも削除されます。元に戻せません。</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>ファイルを添付</translation>
        </message>
    </context>
    <context>
        <name>ChatSettingsPopover</name>
        <message>
            <source>This chat</source>
            <translation>このチャット</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>変更…</translation>
        </message>
        <message>
            <source>Set</source>
            <translation>設定する</translation>
        </message>
        <message>
            <source>Set the temperature</source>
            <translation>温度を設定</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>最大トークン数</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推論の度合い</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>ウェブを検索</translation>
        </message>
        <message>
            <source>Search the web in this chat</source>
            <translation>このチャットでウェブを検索</translation>
        </message>
        <message>
            <source>Use the defaults</source>
            <translation>既定値を使う</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推論</translation>
        </message>
        <message>
            <source>Web</source>
            <translation>ウェブ</translation>
        </message>
        <message>
            <source>Knowledge</source>
            <translation>ナレッジ</translation>
        </message>
        <message>
            <source>{model} — {provider}</source>
            <translation>{model} — {provider}</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>モデルなし</translation>
        </message>
        <message>
            <source>No provider yet</source>
            <translation>プロバイダーがまだありません</translation>
        </message>
        <message>
            <source>Default ({value})</source>
            <translation>既定({value})</translation>
        </message>
        <message>
            <source>Default (the model's)</source>
            <translation>既定(モデルの値)</translation>
        </message>
        <message>
            <source>off</source>
            <translation>オフ</translation>
        </message>
        <message>
            <source>on</source>
            <translation>オン</translation>
        </message>
        <message>
            <source>This model does not say it can reason; the setting is sent anyway.</source>
            <translation>このモデルは推論に対応していると示していませんが、設定はそのまま送信されます。</translation>
        </message>
        <message>
            <source>the assistant {name}</source>
            <translation>アシスタント「{name}」</translation>
        </message>
        <message>
            <source>the provider</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>Unset values come from {source}. These apply to this chat only.</source>
            <translation>未設定の値は{source}から取られます。この設定はこのチャットにだけ適用されます。</translation>
        </message>
        <message>
            <source>The provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter), else the search service chosen in Preferences</source>
            <translation>プロバイダー独自の検索があればそれを(OpenAI Responses、Anthropic、Gemini、OpenRouter)、なければ環境設定で選んだ検索サービスを使います</translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message>
            <source>Conversation</source>
            <translation>会話</translation>
        </message>
        <message>
            <source>Zoom &amp;in</source>
            <translation>拡大(&amp;I)</translation>
        </message>
        <message>
            <source>Zoom &amp;out</source>
            <translation>縮小(&amp;O)</translation>
        </message>
        <message>
            <source>&amp;Actual size</source>
            <translation>実際のサイズ(&amp;A)</translation>
        </message>
        <message>
            <source>Theme: follow &amp;system</source>
            <translation>テーマ: システムに従う(&amp;S)</translation>
        </message>
        <message>
            <source>Theme: &amp;light</source>
            <translation>テーマ: ライト(&amp;L)</translation>
        </message>
        <message>
            <source>Theme: &amp;dark</source>
            <translation>テーマ: ダーク(&amp;D)</translation>
        </message>
        <message>
            <source>Theme: &amp;high contrast</source>
            <translation>テーマ: ハイコントラスト(&amp;H)</translation>
        </message>
    </context>
    <context>
        <name>CompareChooser</name>
        <message>
            <source>Compare models</source>
            <translation>モデルを比較</translation>
        </message>
        <message>
            <source>Pick {low} to {high} models. Each answers the same question with this chat's conversation, attachments and tools; every answer is kept as a version of the reply.</source>
            <translation>{low}〜{high} 個のモデルを選びます。各モデルがこのチャットの会話・添付・ツールを使って同じ質問に答え、すべての回答が返信のバージョンとして残ります。</translation>
        </message>
        <message>
            <source>Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to compare.</source>
            <translation>キー: 入力で検索、↑/↓ で移動、Enter で追加または削除、Ctrl+Enter で比較。</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>モデルを検索</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Chosen models</source>
            <translation>選択したモデル</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比較</translation>
        </message>
        <message numerus="yes">
            <source>Chosen (%n): </source>
            <translation>
                <numerusform>選択済み (%n): </numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing chosen yet: click models in the list.</source>
            <translation>まだ選択されていません。一覧のモデルをクリックしてください。</translation>
        </message>
        <message>
            <source>Choose {low} to {high} models</source>
            <translation>{low}〜{high} 個のモデルを選んでください</translation>
        </message>
    </context>
    <context>
        <name>CompareColumnView</name>
        <message>
            <source>Answer of {model}</source>
            <translation>{model} の回答</translation>
        </message>
        <message>
            <source>Figures of this answer</source>
            <translation>この回答の数値</translation>
        </message>
        <message>
            <source>Stop this answer (the others go on); what it wrote so far is kept</source>
            <translation>この回答を停止します(ほかは続行)。ここまでの内容は残ります</translation>
        </message>
        <message>
            <source>Stop {model}</source>
            <translation>{model} を停止</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>これを採用</translation>
        </message>
        <message>
            <source>Show this answer in the chat and go on from it; the other answers stay as its other versions (‹ n/m ›)</source>
            <translation>この回答をチャットに表示して続けます。ほかの回答は別バージョンとして残ります(‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the answer of {model}</source>
            <translation>{model} の回答を採用</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>失敗: {error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>不明なエラー</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>停止しました</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>ツール実行回数の上限で停止しました</translation>
        </message>
        <message>
            <source>Keep this answer first: in the chat it can be edited, regenerated, continued, forked or deleted.</source>
            <translation>まずこの回答を採用してください。チャット上で編集、再生成、続き、分岐、削除ができるようになります。</translation>
        </message>
        <message>
            <source>{seconds} s to first token</source>
            <translation>最初のトークンまで {seconds} 秒</translation>
        </message>
        <message>
            <source>{rate} tok/s</source>
            <translation>{rate} トークン/秒</translation>
        </message>
        <message>
            <source>{input} in · {output} out</source>
            <translation>入力 {input} · 出力 {output}</translation>
        </message>
        <message>
            <source>{output} out</source>
            <translation>出力 {output}</translation>
        </message>
        <message>
            <source>Waiting for the first token…</source>
            <translation>最初のトークンを待っています…</translation>
        </message>
    </context>
    <context>
        <name>CompareLauncher</name>
        <message>
            <source>Type the question to compare first, then press Compare (or send it as /compare QUESTION).</source>
            <translation>比較する質問を先に入力してから「比較」を押してください(または /compare 質問 として送信)。</translation>
        </message>
    </context>
    <context>
        <name>CompareView</name>
        <message>
            <source>Compare answers</source>
            <translation>回答を比較</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n answer(s)</source>
            <translation>
                <numerusform>%n 件の回答を比較中</numerusform>
            </translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>チャットに戻る</translation>
        </message>
        <message>
            <source>Back to the chat, showing the first answer (or the one you keep); every answer stays as a version of the reply</source>
            <translation>最初の回答(または採用した回答)を表示してチャットに戻ります。すべての回答は返信のバージョンとして残ります</translation>
        </message>
    </context>
    <context>
        <name>Composer</name>
        <message>
            <source>Built-in</source>
            <translation>組み込み</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Message…  (Enter to send · Shift+Enter for a new line)</source>
            <translation>メッセージ…  (Enter で送信 · Shift+Enter で改行)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>メッセージ</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>ファイルを添付</translation>
        </message>
        <message>
            <source>No workspace</source>
            <translation>作業フォルダーなし</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may read</source>
            <translation>ファイルツールが読み取れるフォルダーを選択</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>作業フォルダー</translation>
        </message>
        <message>
            <source>Switch tools on or off for this chat</source>
            <translation>このチャットのツールをオン/オフ</translation>
        </message>
        <message>
            <source>Tools for this chat</source>
            <translation>このチャットのツール</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比較</translation>
        </message>
        <message>
            <source>Ask 2 to 4 models at once and see their answers side by side (or type /compare)</source>
            <translation>2〜4 個のモデルに同時に質問し、回答を並べて表示します(または /compare と入力)</translation>
        </message>
        <message>
            <source>Attach images, PDF, Word, Excel, PowerPoint, EPUB or text files</source>
            <translation>画像、PDF、Word、Excel、PowerPoint、EPUB、テキストファイルを添付</translation>
        </message>
        <message>
            <source>Compare models</source>
            <translation>モデルを比較</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>送信</translation>
        </message>
        <message>
            <source>Research: the model plans, searches the web and the chat's knowledge bases in rounds, reads pages and answers with a report citing them (limits in Settings)</source>
            <translation>リサーチ：モデルが計画を立て、ウェブとこのチャットのナレッジベースを数ラウンド検索し、ページを読み、出典を引用したレポートで回答します（制限は設定で）</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>リサーチ</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Workspace folder: {name}</source>
            <translation>作業フォルダー: {name}</translation>
        </message>
        <message>
            <source>Choose workspace…</source>
            <translation>作業フォルダーを選択…</translation>
        </message>
        <message>
            <source>Choose the folder the file tools may use</source>
            <translation>ファイルツールが使えるフォルダーを選択</translation>
        </message>
        <message>
            <source>Workspace folder: none</source>
            <translation>作業フォルダー: なし</translation>
        </message>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>ツール: %n 個オン</numerusform>
            </translation>
        </message>
        <message>
            <source>tools: none</source>
            <translation>ツール: なし</translation>
        </message>
        <message>
            <source>Choose a workspace folder to use the file tools</source>
            <translation>ファイルツールを使うには作業フォルダーを選んでください</translation>
        </message>
        <message>
            <source>No tools available</source>
            <translation>使えるツールがありません</translation>
        </message>
        <message>
            <source>All on</source>
            <translation>すべてオン</translation>
        </message>
        <message>
            <source>All off</source>
            <translation>すべてオフ</translation>
        </message>
        <message>
            <source>Tool settings…</source>
            <translation>ツールの設定…</translation>
        </message>
        <message>
            <source>MCP servers…</source>
            <translation>MCP サーバー…</translation>
        </message>
    </context>
    <context>
        <name>ConversationActions</name>
        <message>
            <source>&amp;Import chats…</source>
            <translation>チャットをインポート(&amp;I)…</translation>
        </message>
        <message>
            <source>&amp;Export chat…</source>
            <translation>チャットをエクスポート(&amp;E)…</translation>
        </message>
        <message>
            <source>Export &amp;all chats…</source>
            <translation>すべてのチャットをエクスポート(&amp;A)…</translation>
        </message>
        <message>
            <source>&amp;Chat</source>
            <translation>チャット(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Search chats…</source>
            <translation>チャットを検索(&amp;S)…</translation>
        </message>
        <message>
            <source>&amp;Find in this chat…</source>
            <translation>このチャット内を検索(&amp;F)…</translation>
        </message>
        <message>
            <source>Edit system &amp;prompt…</source>
            <translation>システムプロンプトを編集(&amp;P)…</translation>
        </message>
        <message>
            <source>&amp;Assistants…</source>
            <translation>アシスタント(&amp;A)…</translation>
        </message>
        <message>
            <source>Choose &amp;model…</source>
            <translation>モデルを選択(&amp;M)…</translation>
        </message>
        <message>
            <source>Stop &amp;all answers</source>
            <translation>すべての回答を停止(&amp;A)</translation>
        </message>
        <message>
            <source>Show &amp;chats</source>
            <translation>チャットを表示(&amp;C)</translation>
        </message>
        <message>
            <source>Show a&amp;rchived chats</source>
            <translation>アーカイブしたチャットを表示(&amp;R)</translation>
        </message>
        <message>
            <source>Show &amp;trash</source>
            <translation>ゴミ箱を表示(&amp;T)</translation>
        </message>
    </context>
    <context>
        <name>DefaultPrompt</name>
        <message>
            <source>You are Assista, a helpful assistant running in a desktop app. Use the available tools when they help answer the user's question. Format answers in Markdown.</source>
            <translation>あなたは Assista です。デスクトップアプリで動作する頼りになるアシスタントです。ユーザーの質問に答えるのに役立つときは、利用できるツールを使ってください。回答は Markdown で書式設定してください。</translation>
        </message>
    </context>
    <context>
        <name>DesktopNotifier</name>
        <message>
            <source>Answer failed</source>
            <translation>回答に失敗しました</translation>
        </message>
        <message>
            <source>Answer ready</source>
            <translation>回答ができました</translation>
        </message>
        <message>
            <source>A chat</source>
            <translation>チャット</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>承認が必要です</translation>
        </message>
        <message>
            <source>{chat}: {tool} waits for your approval</source>
            <translation>{chat}: {tool} があなたの承認を待っています</translation>
        </message>
    </context>
    <context>
        <name>DesktopTab</name>
        <message>
            <source>Keep running in the tray</source>
            <extracomment>The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at once, so the status below says whether the desktop took it.</extracomment>
            <translation>トレイで実行し続ける</translation>
        </message>
        <message>
            <source>Closing the window hides it; the tray icon's menu brings it back, and its Quit quits</source>
            <translation>ウィンドウを閉じると隠れます。トレイアイコンのメニューで再表示でき、その「終了」でアプリを終了します</translation>
        </message>
        <message>
            <source>This desktop shows no tray icons: closing the window quits, whatever this says</source>
            <translation>このデスクトップはトレイアイコンを表示しません。この設定にかかわらず、ウィンドウを閉じると終了します</translation>
        </message>
        <message>
            <source>Tray</source>
            <translation>トレイ</translation>
        </message>
        <message>
            <source>Clear the quick ask shortcut</source>
            <translation>クイック質問のショートカットを消去</translation>
        </message>
        <message>
            <source>No global shortcut</source>
            <translation>グローバルショートカットなし</translation>
        </message>
        <message>
            <source>Quick ask shortcut</source>
            <translation>クイック質問のショートカット</translation>
        </message>
        <message>
            <source>Press the key combination that opens the quick-ask window from any application; it applies at once</source>
            <translation>どのアプリからでもクイック質問ウィンドウを開くキーの組み合わせを押してください。すぐに反映されます</translation>
        </message>
        <message>
            <source>Click, then press the combination (Ctrl, Alt or Meta with a key)</source>
            <translation>クリックしてから組み合わせを押してください(Ctrl、Alt、Meta とキー)</translation>
        </message>
        <message>
            <source>Quick ask shortcut status</source>
            <translation>クイック質問ショートカットの状態</translation>
        </message>
        <message>
            <source>Look for a new version once a day</source>
            <translation>1 日 1 回、新しいバージョンを確認する</translation>
        </message>
        <message>
            <source>Updates</source>
            <translation>アップデート</translation>
        </message>
        <message>
            <source>Release feed URL</source>
            <translation>リリースフィードの URL</translation>
        </message>
        <message>
            <source>A feed in GitHub's Releases API format; empty: the project's own releases</source>
            <translation>GitHub Releases API 形式のフィード。空欄ならプロジェクト自身のリリース</translation>
        </message>
        <message>
            <source>Release feed</source>
            <translation>リリースフィード</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir): the app never looks for updates.</source>
            <translation>ポータブルモード(--data-dir): アップデートは確認しません。</translation>
        </message>
        <message>
            <source>The release feed must be an https:// URL.</source>
            <translation>リリースフィードは https:// の URL にしてください。</translation>
        </message>
    </context>
    <context>
        <name>EarlierColumnView</name>
        <message>
            <source>Assistant</source>
            <translation>アシスタント</translation>
        </message>
        <message>
            <source>Earlier answer of {model}</source>
            <translation>{model} の以前の回答</translation>
        </message>
        <message>
            <source>The answer you asked about</source>
            <translation>質問した対象の回答</translation>
        </message>
        <message>
            <source>Keep this one</source>
            <translation>これを採用</translation>
        </message>
        <message>
            <source>Go on from this answer, as before; the new answers stay as its other versions (‹ n/m ›)</source>
            <translation>これまでどおりこの回答から続けます。新しい回答は別バージョンとして残ります(‹ n/m ›)</translation>
        </message>
        <message>
            <source>Keep the earlier answer</source>
            <translation>以前の回答を採用</translation>
        </message>
    </context>
    <context>
        <name>EarlyQuestion</name>
        <message>
            <source>Question sent. Opening the chat…</source>
            <translation>質問を送信しました。チャットを開いています…</translation>
        </message>
    </context>
    <context>
        <name>EditBanner</name>
        <message>
            <source>Editing an earlier message — Enter sends it as a new version; the original and its answers are kept (‹ › switches).</source>
            <translation>以前のメッセージを編集中 — Enter で新しいバージョンとして送信します。元のメッセージと回答は残ります(‹ › で切り替え)。</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>編集をキャンセル</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>{provider} did not accept the API key. Check the key in Providers.</source>
            <extracomment>code (or "code+param": the sentence when that param is known) -&gt; the sentence.</extracomment>
            <translation>{provider} が API キーを受け付けませんでした。「プロバイダー」でキーを確認してください。</translation>
        </message>
        <message>
            <source>{provider} did not accept the API key (HTTP {status}). Check the key in Providers.</source>
            <translation>{provider} が API キーを受け付けませんでした（HTTP {status}）。「プロバイダー」でキーを確認してください。</translation>
        </message>
        <message>
            <source>{provider} refused access: the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} がアクセスを拒否しました。この API キーにはこのモデルまたはエンドポイントの使用が許可されていない可能性があります。</translation>
        </message>
        <message>
            <source>{provider} refused access (HTTP {status}): the API key may not be allowed to use this model or endpoint.</source>
            <translation>{provider} がアクセスを拒否しました（HTTP {status}）。この API キーにはこのモデルまたはエンドポイントの使用が許可されていない可能性があります。</translation>
        </message>
        <message>
            <source>{provider} did not find the address asked for. Check the base URL.</source>
            <translation>{provider} で要求されたアドレスが見つかりませんでした。ベース URL を確認してください。</translation>
        </message>
        <message>
            <source>{provider} does not know this model. Choose another model or check its name.</source>
            <translation>{provider} はこのモデルを認識しません。別のモデルを選ぶか、名前を確認してください。</translation>
        </message>
        <message>
            <source>{provider} does not know the model {model}. Choose another model or check its name.</source>
            <translation>{provider} はモデル {model} を認識しません。別のモデルを選ぶか、名前を確認してください。</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in a moment.</source>
            <translation>{provider} がリクエストを制限しています（多すぎる、または速すぎます）。しばらくしてから再試行してください。</translation>
        </message>
        <message>
            <source>{provider} is limiting requests (too many, too fast). Try again in {retry_after} s.</source>
            <translation>{provider} がリクエストを制限しています（多すぎる、または速すぎます）。{retry_after} 秒後に再試行してください。</translation>
        </message>
        <message>
            <source>{provider} says the account's quota or credit is used up. Check the plan or billing.</source>
            <translation>{provider} によると、アカウントの割り当てまたはクレジットを使い切りました。プランまたは請求情報を確認してください。</translation>
        </message>
        <message>
            <source>The conversation is too long for this model's context window. Start a new chat, or delete earlier messages.</source>
            <translation>会話がこのモデルのコンテキストウィンドウに対して長すぎます。新しいチャットを始めるか、前のメッセージを削除してください。</translation>
        </message>
        <message>
            <source>{provider} refused the request.</source>
            <translation>{provider} がリクエストを拒否しました。</translation>
        </message>
        <message>
            <source>{provider} refused the request (HTTP {status}).</source>
            <translation>{provider} がリクエストを拒否しました（HTTP {status}）。</translation>
        </message>
        <message>
            <source>{provider} had a server error. Try again later.</source>
            <translation>{provider} でサーバーエラーが発生しました。後でもう一度お試しください。</translation>
        </message>
        <message>
            <source>{provider} had a server error (HTTP {status}). Try again later.</source>
            <translation>{provider} でサーバーエラーが発生しました（HTTP {status}）。後でもう一度お試しください。</translation>
        </message>
        <message>
            <source>Could not connect to {provider}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>{provider} に接続できませんでした。ベース URL、ネットワーク、プロキシを確認し、サーバーが動作していることを確かめてください。</translation>
        </message>
        <message>
            <source>Could not connect to {provider} at {url}. Check the base URL, the network and the proxy, and that the server is running.</source>
            <translation>{url} の {provider} に接続できませんでした。ベース URL、ネットワーク、プロキシを確認し、サーバーが動作していることを確かめてください。</translation>
        </message>
        <message>
            <source>{provider} did not answer in time.</source>
            <translation>{provider} が時間内に応答しませんでした。</translation>
        </message>
        <message>
            <source>The connection to {provider} broke before the answer was complete.</source>
            <translation>回答が完了する前に {provider} との接続が切れました。</translation>
        </message>
        <message>
            <source>{provider} sent an answer that could not be read. Check the base URL.</source>
            <translation>{provider} から読み取れない応答が返されました。ベース URL を確認してください。</translation>
        </message>
        <message>
            <source>{provider} sent a reply larger than the limit; it was not read.</source>
            <translation>{provider} からの応答が上限を超えたため、読み取りませんでした。</translation>
        </message>
        <message>
            <source>The base URL of {provider} cannot be used. Check it in Providers.</source>
            <translation>{provider} のベース URL は使用できません。「プロバイダー」で確認してください。</translation>
        </message>
        <message>
            <source>{provider} reported an error.</source>
            <translation>{provider} がエラーを報告しました。</translation>
        </message>
        <message>
            <source>Choose a model for {provider} first.</source>
            <translation>先に {provider} のモデルを選んでください。</translation>
        </message>
        <message>
            <source>{model} cannot see images. Pick a vision model, or turn on vision for it in Providers if you know it supports images.</source>
            <translation>{model} は画像を見ることができません。ビジョン対応のモデルを選ぶか、画像に対応していることが分かっている場合は「プロバイダー」でビジョンを有効にしてください。</translation>
        </message>
        <message>
            <source>This chat is still answering; stop it first.</source>
            <translation>このチャットはまだ回答中です。先に停止してください。</translation>
        </message>
        <message>
            <source>Research needs something to search: choose a search service (SearXNG, Brave or Tavily) in Settings, or add a knowledge base to the chat.</source>
            <translation>リサーチには検索対象が必要です。設定で検索サービス（SearXNG、Brave、Tavily）を選ぶか、チャットにナレッジベースを追加してください。</translation>
        </message>
        <message>
            <source>That message is already gone.</source>
            <translation>そのメッセージはすでにありません。</translation>
        </message>
        <message>
            <source>That chat is gone.</source>
            <translation>そのチャットはすでにありません。</translation>
        </message>
        <message>
            <source>A memory needs some text.</source>
            <translation>メモリーにはテキストが必要です。</translation>
        </message>
        <message>
            <source>That memory is gone.</source>
            <translation>そのメモリーはもうありません。</translation>
        </message>
        <message>
            <source>Comparing models is not available in a temporary chat.</source>
            <translation>一時チャットではモデルの比較は使えません。</translation>
        </message>
        <message>
            <source>Something unexpected went wrong.</source>
            <translation>予期しないエラーが発生しました。</translation>
        </message>
        <message>
            <source>A project needs a name.</source>
            <translation>プロジェクトには名前が必要です。</translation>
        </message>
        <message>
            <source>There is already a project named {name}.</source>
            <translation>{name} という名前のプロジェクトはすでにあります。</translation>
        </message>
        <message>
            <source>There is no project named {name}.</source>
            <translation>{name} という名前のプロジェクトはありません。</translation>
        </message>
        <message>
            <source>The file {file} does not exist.</source>
            <translation>ファイル {file} は存在しません。</translation>
        </message>
        <message>
            <source>{file} could not be added to the project.</source>
            <translation>{file} をプロジェクトに追加できませんでした。</translation>
        </message>
        <message>
            <source>The workspace {folder} is not a folder.</source>
            <translation>ワークスペース {folder} はフォルダーではありません。</translation>
        </message>
        <message>
            <source>{sentence} Details: {detail}</source>
            <translation>{sentence} 詳細: {detail}</translation>
        </message>
        <message>
            <source>The provider</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>The data folder {folder} does not exist.</source>
            <translation>データフォルダー {folder} は存在しません。</translation>
        </message>
        <message>
            <source>The data folder {folder} holds no Assista database.</source>
            <translation>データフォルダー {folder} に Assista のデータベースがありません。</translation>
        </message>
        <message>
            <source>The data folder {folder} cannot be written.</source>
            <translation>データフォルダー {folder} に書き込めません。</translation>
        </message>
        <message>
            <source>{file} cannot be used.</source>
            <translation>{file} を使用できません。</translation>
        </message>
        <message>
            <source>The data location {folder} exists but is not a folder.</source>
            <translation>データの場所 {folder} は存在しますが、フォルダーではありません。</translation>
        </message>
        <message>
            <source>{flag} needs a folder, for example {example}.</source>
            <translation>{flag} にはフォルダーが必要です（例: {example}）。</translation>
        </message>
        <message>
            <source>The database is closed.</source>
            <translation>データベースは閉じられています。</translation>
        </message>
        <message>
            <source>The database {path} was written by a newer version of Assista (schema {schema}; this version knows up to {known}). Update Assista, or start it with another data folder. The database was not modified.</source>
            <translation>データベース {path} は新しいバージョンの Assista で書き込まれています（スキーマ {schema}。このバージョンが扱えるのは {known} まで）。Assista を更新するか、別のデータフォルダーで起動してください。データベースは変更されていません。</translation>
        </message>
        <message>
            <source>The database {path} needs an upgrade (schema {schema} to {known}) and cannot be opened read-only.</source>
            <translation>データベース {path} はアップグレード（スキーマ {schema} から {known}）が必要なため、読み取り専用では開けません。</translation>
        </message>
        <message>
            <source>The database {path} is damaged.</source>
            <translation>データベース {path} は破損しています。</translation>
        </message>
        <message>
            <source>The database {path} is damaged. Restart Assista to recover it.</source>
            <translation>データベース {path} は破損しています。Assista を再起動して復旧してください。</translation>
        </message>
        <message>
            <source>The database {path} cannot be used. It may be damaged or not an Assista database.</source>
            <translation>データベース {path} を使用できません。破損しているか、Assista のデータベースではない可能性があります。</translation>
        </message>
        <message>
            <source>The database {path} is damaged and could not be moved aside; move it away yourself and start Assista again.</source>
            <translation>データベース {path} は破損しており、別の場所に移せませんでした。手動で移動してから Assista を再起動してください。</translation>
        </message>
        <message>
            <source>Cannot open the database {path}.</source>
            <translation>データベース {path} を開けません。</translation>
        </message>
        <message>
            <source>The database {path} is open read-only (its folder cannot be written); this change was not saved.</source>
            <translation>データベース {path} は読み取り専用で開かれています（フォルダーに書き込めません）。この変更は保存されませんでした。</translation>
        </message>
        <message>
            <source>The database {path} cannot be written.</source>
            <translation>データベース {path} に書き込めません。</translation>
        </message>
        <message>
            <source>The disk holding the database {path} is full.</source>
            <translation>データベース {path} があるディスクがいっぱいです。</translation>
        </message>
        <message>
            <source>The database is busy or unavailable.</source>
            <translation>データベースがビジー状態か、利用できません。</translation>
        </message>
        <message>
            <source>The database {path} could not be read or written.</source>
            <translation>データベース {path} の読み書きができませんでした。</translation>
        </message>
        <message>
            <source>Cannot back up the database {path} before upgrading it. The database was not modified; free some disk space and try again.</source>
            <translation>アップグレード前にデータベース {path} をバックアップできません。データベースは変更されていません。ディスクの空き容量を増やしてから再試行してください。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was left at version {version}.</source>
            <translation>データベース {path} のアップグレード（移行 {migration}）に失敗しました。データベースはバージョン {version} のままです。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed. The database was restored as it was (version {version}); a copy is kept in {backup}.</source>
            <translation>データベース {path} のアップグレード（移行 {migration}）に失敗しました。データベースは元の状態（バージョン {version}）に戻され、コピーが {backup} に保存されています。</translation>
        </message>
        <message>
            <source>Upgrading the database {path} (migration {migration}) failed, and restoring the backup also failed; your data is safe in {backup}.</source>
            <translation>データベース {path} のアップグレード（移行 {migration}）に失敗し、バックアップの復元にも失敗しました。データは {backup} に安全に保存されています。</translation>
        </message>
        <message>
            <source>After the upgrade, some records of the database point to records that do not exist.</source>
            <translation>アップグレード後、データベースの一部のレコードが存在しないレコードを参照しています。</translation>
        </message>
        <message>
            <source>A step of the database upgrade failed.</source>
            <translation>データベースのアップグレードの手順が失敗しました。</translation>
        </message>
        <message>
            <source>Cannot open the request inspector's database {path}.</source>
            <translation>リクエストインスペクターのデータベース {path} を開けません。</translation>
        </message>
        <message>
            <source>The key file {file} cannot be read. Fix or delete it and enter the API keys again.</source>
            <translation>キーファイル {file} を読み取れません。修正するか削除して、API キーを入力し直してください。</translation>
        </message>
        <message>
            <source>The key file {file} has an unexpected format.</source>
            <translation>キーファイル {file} の形式が想定外です。</translation>
        </message>
        <message>
            <source>Cannot write the key file {file}.</source>
            <translation>キーファイル {file} に書き込めません。</translation>
        </message>
        <message>
            <source>The setting {key} cannot be stored.</source>
            <translation>設定 {key} を保存できません。</translation>
        </message>
        <message>
            <source>The search failed.</source>
            <translation>検索に失敗しました。</translation>
        </message>
        <message>
            <source>The answer could not be saved.</source>
            <translation>回答を保存できませんでした。</translation>
        </message>
        <message>
            <source>{count} messages could not be saved.</source>
            <translation>{count} 件のメッセージを保存できませんでした。</translation>
        </message>
        <message>
            <source>The message is empty.</source>
            <translation>メッセージが空です。</translation>
        </message>
        <message>
            <source>That message already exists.</source>
            <translation>そのメッセージはすでに存在します。</translation>
        </message>
        <message>
            <source>That message is not in this chat.</source>
            <translation>そのメッセージはこのチャットにありません。</translation>
        </message>
        <message>
            <source>The message could not be saved: it belongs to another chat.</source>
            <translation>メッセージを保存できませんでした: 別のチャットに属しています。</translation>
        </message>
        <message>
            <source>The message could not be saved: the message it follows is not in this chat.</source>
            <translation>メッセージを保存できませんでした: 前のメッセージがこのチャットにありません。</translation>
        </message>
        <message>
            <source>That message is not on the chat's shown branch.</source>
            <translation>そのメッセージはチャットの表示中のブランチにありません。</translation>
        </message>
        <message>
            <source>There is no question before this message to ask again.</source>
            <translation>このメッセージの前に、もう一度尋ねる質問がありません。</translation>
        </message>
        <message>
            <source>A chat with id {chat} already exists.</source>
            <translation>ID {chat} のチャットはすでに存在します。</translation>
        </message>
        <message>
            <source>The chat could not be locked for its answer.</source>
            <translation>回答のためにチャットをロックできませんでした。</translation>
        </message>
        <message>
            <source>Nothing to undo: no file written by the assistant is waiting to be undone.</source>
            <translation>元に戻すものはありません: アシスタントが書き込んだファイルで元に戻せるものはありません。</translation>
        </message>
        <message>
            <source>This record has no request to replay (recorded by an older version).</source>
            <translation>この記録には再実行するリクエストがありません（古いバージョンで記録されました）。</translation>
        </message>
        <message>
            <source>Compare {minimum} to {maximum} models at once ({given} given).</source>
            <translation>一度に比較できるモデルは {minimum}～{maximum} 個です（{given} 個指定）。</translation>
        </message>
        <message>
            <source>An assistant needs a name.</source>
            <translation>アシスタントには名前が必要です。</translation>
        </message>
        <message>
            <source>The temperature must be between 0 and 2.</source>
            <translation>温度は 0 から 2 の間にする必要があります。</translation>
        </message>
        <message>
            <source>The assistant could not be saved.</source>
            <translation>アシスタントを保存できませんでした。</translation>
        </message>
        <message>
            <source>That assistant no longer exists.</source>
            <translation>そのアシスタントはもう存在しません。</translation>
        </message>
        <message>
            <source>The project could not be saved.</source>
            <translation>プロジェクトを保存できませんでした。</translation>
        </message>
        <message>
            <source>That project no longer exists.</source>
            <translation>そのプロジェクトはもう存在しません。</translation>
        </message>
        <message>
            <source>Several memories have ids starting with {id}; give more of the id.</source>
            <translation>ID が {id} で始まるメモリーが複数あります。ID をもっと長く指定してください。</translation>
        </message>
        <message>
            <source>The system speech failed.</source>
            <translation>システムの音声合成に失敗しました。</translation>
        </message>
        <message>
            <source>This is not an Assista export file.</source>
            <translation>これは Assista のエクスポートファイルではありません。</translation>
        </message>
        <message>
            <source>This export has format version {version}, which this version of Assista cannot read; update Assista to import it.</source>
            <translation>このエクスポートの形式バージョンは {version} で、このバージョンの Assista では読み取れません。インポートするには Assista を更新してください。</translation>
        </message>
        <message>
            <source>A chat in the export is not readable.</source>
            <translation>エクスポート内のチャットを読み取れません。</translation>
        </message>
        <message>
            <source>The chat {chat} in the export is not readable.</source>
            <translation>エクスポート内のチャット {chat} を読み取れません。</translation>
        </message>
        <message>
            <source>Some messages of the chat {chat} already exist in another chat.</source>
            <translation>チャット {chat} の一部のメッセージが、すでに別のチャットに存在します。</translation>
        </message>
        <message>
            <source>The memories in the export are not readable.</source>
            <translation>エクスポート内のメモリーを読み取れません。</translation>
        </message>
        <message>
            <source>A project in the export is not readable.</source>
            <translation>エクスポート内のプロジェクトを読み取れません。</translation>
        </message>
        <message>
            <source>{file} holds more than {limit} MB of chats, more than Assista imports at once; split the export or import the chats in parts.</source>
            <translation>{file} には {limit} MB を超えるチャットが含まれており、Assista が一度にインポートできる量を超えています。エクスポートを分割するか、チャットを分けてインポートしてください。</translation>
        </message>
        <message>
            <source>{file} is not a file (a folder, a device or a pipe); import reads an export file.</source>
            <translation>{file} はファイルではありません（フォルダー、デバイス、またはパイプです）。インポートはエクスポートファイルを読み取ります。</translation>
        </message>
        <message>
            <source>{file} is a damaged zip file.</source>
            <translation>{file} は破損した zip ファイルです。</translation>
        </message>
        <message>
            <source>{file} is not a JSON file.</source>
            <translation>{file} は JSON ファイルではありません。</translation>
        </message>
        <message>
            <source>{file} has no conversations.json inside.</source>
            <translation>{file} の中に conversations.json がありません。</translation>
        </message>
        <message>
            <source>This file is neither an Assista export nor a ChatGPT conversations.json.</source>
            <translation>このファイルは Assista のエクスポートでも ChatGPT の conversations.json でもありません。</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read: a conversation in it has fields of the wrong type; nothing was imported.</source>
            <translation>ChatGPT のエクスポートを読み取れませんでした: 会話のフィールドの型が正しくありません。何もインポートされていません。</translation>
        </message>
        <message>
            <source>The ChatGPT export could not be read.</source>
            <translation>ChatGPT のエクスポートを読み取れませんでした。</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>チャットを始めるにはプロバイダーを追加してください。</translation>
        </message>
        <message>
            <source>{provider} needs an API key: add one in Providers.</source>
            <translation>{provider} には API キーが必要です。「プロバイダー」で追加してください。</translation>
        </message>
        <message>
            <source>{provider} uses an unsupported kind of provider ({kind}).</source>
            <translation>{provider} はサポートされていない種類のプロバイダー（{kind}）です。</translation>
        </message>
        <message>
            <source>{provider}: the option {option} is not valid.</source>
            <translation>{provider}: オプション {option} が無効です。</translation>
        </message>
        <message>
            <source>Unknown provider preset {preset} (known: {known}).</source>
            <translation>不明なプロバイダーのプリセット {preset}（既知: {known}）。</translation>
        </message>
        <message>
            <source>{provider} needs a base URL (for example http://localhost:8080/v1).</source>
            <translation>{provider} にはベース URL が必要です（例: http://localhost:8080/v1）。</translation>
        </message>
        <message>
            <source>The header {name} looks like a credential. Enter the API key in the provider's key field instead; it is kept in the system keyring, not in the settings.</source>
            <translation>ヘッダー {name} は認証情報のようです。API キーはプロバイダーのキー欄に入力してください。キーは設定ではなくシステムのキーリングに保存されます。</translation>
        </message>
        <message>
            <source>Unknown tools: {tools}. Available: {available}.</source>
            <translation>不明なツール: {tools}。利用可能: {available}。</translation>
        </message>
        <message>
            <source>{provider} has no web search of its own: choose a search service (SearXNG, Brave or Tavily) in Settings, or turn off Search the web.</source>
            <translation>{provider} には独自のウェブ検索がありません。設定で検索サービス（SearXNG、Brave、Tavily）を選ぶか、「ウェブを検索」をオフにしてください。</translation>
        </message>
        <message>
            <source>Web search via {service} needs the instance's address (Settings).</source>
            <translation>{service} によるウェブ検索にはインスタンスのアドレスが必要です（設定）。</translation>
        </message>
        <message>
            <source>Web search via {service} needs an API key (Settings).</source>
            <translation>{service} によるウェブ検索には API キーが必要です（設定）。</translation>
        </message>
        <message>
            <source>This model cannot call tools, so it cannot search the web here; pick a model with tools or turn off Search the web.</source>
            <translation>このモデルはツールを呼び出せないため、ここではウェブを検索できません。ツールに対応したモデルを選ぶか、「ウェブを検索」をオフにしてください。</translation>
        </message>
        <message>
            <source>Unknown sync target {url}: use {forms}.</source>
            <translation>不明な同期先 {url}: {forms} を使用してください。</translation>
        </message>
        <message>
            <source>Set the sync passphrase in Settings → Sync.</source>
            <translation>「設定 → 同期」で同期パスフレーズを設定してください。</translation>
        </message>
        <message>
            <source>The sync passphrase is empty; set one to encrypt your chats.</source>
            <translation>同期パスフレーズが空です。チャットを暗号化するために設定してください。</translation>
        </message>
        <message>
            <source>The sync passphrase is wrong: it does not open the chats already on the target. Nothing was changed.</source>
            <translation>同期パスフレーズが間違っています: 同期先にあるチャットを開けません。何も変更されていません。</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged.</source>
            <translation>同期先の {file} は破損しています。</translation>
        </message>
        <message>
            <source>{file} on the sync target is damaged or was altered (it fails authentication).</source>
            <translation>同期先の {file} は破損しているか、改ざんされています（認証に失敗しました）。</translation>
        </message>
        <message>
            <source>The sync target was set up by a newer version of Assista; update Assista.</source>
            <translation>同期先は新しいバージョンの Assista で設定されています。Assista を更新してください。</translation>
        </message>
        <message>
            <source>{file} was written by a newer version of Assista; update Assista to sync.</source>
            <translation>{file} は新しいバージョンの Assista で書き込まれています。同期するには Assista を更新してください。</translation>
        </message>
        <message>
            <source>Another sync of this data folder is running; this one was skipped.</source>
            <translation>このデータフォルダーの別の同期が実行中のため、今回の同期はスキップされました。</translation>
        </message>
        <message>
            <source>A change on this device is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>このデバイス上の変更は {size} で、同期先 {target} が 1 回のアップロードで受け付ける量（{limit}）を超えています。このデバイスに残ります。再び同期するには、削除するか、サーバーのアップロード上限を上げてください。</translation>
        </message>
        <message>
            <source>A message in the chat {chat} is {size}, more than the sync target {target} accepts in one upload ({limit}); it stays on this device. Delete it, or raise the server's upload limit, to sync again.</source>
            <translation>チャット {chat} のメッセージは {size} で、同期先 {target} が 1 回のアップロードで受け付ける量（{limit}）を超えています。このデバイスに残ります。再び同期するには、削除するか、サーバーのアップロード上限を上げてください。</translation>
        </message>
        <message>
            <source>The sync target {target} does not hold {count} of the files it accepted: the server lost them. Nothing is lost here; the next sync sends them again.</source>
            <translation>同期先 {target} は受け付けたファイルのうち {count} 個を保持していません: サーバーが失いました。ここでは何も失われていません。次回の同期で再送されます。</translation>
        </message>
        <message>
            <source>{file} disappeared from the sync target during the sync; nothing was changed here, the next sync will read it.</source>
            <translation>同期中に {file} が同期先から消えました。ここでは何も変更されていません。次回の同期で読み取ります。</translation>
        </message>
        <message>
            <source>The sync target {target} lost {file}.</source>
            <translation>同期先 {target} から {file} が失われました。</translation>
        </message>
        <message>
            <source>The sync target {target} refused the credentials (HTTP {status}); check the user name and the password. Nothing was changed here.</source>
            <translation>同期先 {target} が認証情報を拒否しました（HTTP {status}）。ユーザー名とパスワードを確認してください。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} refused access (HTTP {status}); check the credentials and the path. Nothing was changed here.</source>
            <translation>同期先 {target} がアクセスを拒否しました（HTTP {status}）。認証情報とパスを確認してください。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} has no such folder or bucket (HTTP {status}). Nothing was changed here.</source>
            <translation>同期先 {target} にそのフォルダーまたはバケットがありません（HTTP {status}）。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} refused a file as too large (HTTP {status}). Nothing was changed here.</source>
            <translation>同期先 {target} がファイルを大きすぎるとして拒否しました（HTTP {status}）。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} is out of space (HTTP {status}); free some space on it. Nothing was changed here.</source>
            <translation>同期先 {target} の空き容量が不足しています（HTTP {status}）。空き容量を増やしてください。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} failed (HTTP {status}); try again later. Nothing was changed here.</source>
            <translation>同期先 {target} でエラーが発生しました（HTTP {status}）。後でもう一度お試しください。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} answered HTTP {status}. Nothing was changed here.</source>
            <translation>同期先 {target} が HTTP {status} を返しました。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} sent more than {limit}, so it was not read (the server or a proxy in between is broken). Nothing was changed here.</source>
            <translation>同期先 {target} が {limit} を超えるデータを送ってきたため、読み取りませんでした（サーバーか途中のプロキシに問題があります）。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The sync target {target} did not answer in time; your data here was not changed and the next sync will try again.</source>
            <translation>同期先 {target} が時間内に応答しませんでした。ここのデータは変更されておらず、次回の同期で再試行します。</translation>
        </message>
        <message>
            <source>The sync target {target} cannot be reached; your data here was not changed and the next sync will try again.</source>
            <translation>同期先 {target} に接続できません。ここのデータは変更されておらず、次回の同期で再試行します。</translation>
        </message>
        <message>
            <source>The sync target {target} dropped the connection; your data here was not changed and the next sync will try again.</source>
            <translation>同期先 {target} が接続を切断しました。ここのデータは変更されておらず、次回の同期で再試行します。</translation>
        </message>
        <message>
            <source>The sync target {target} failed; your data here was not changed and the next sync will try again.</source>
            <translation>同期先 {target} でエラーが発生しました。ここのデータは変更されておらず、次回の同期で再試行します。</translation>
        </message>
        <message>
            <source>The sync folder {target} failed. Nothing was changed here.</source>
            <translation>同期フォルダー {target} でエラーが発生しました。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>A file URL names a folder on this machine by its full path: file:///path ({url}).</source>
            <translation>file URL はこのコンピューター上のフォルダーをフルパスで指定します: file:///path（{url}）。</translation>
        </message>
        <message>
            <source>{file} in the sync folder {target} is larger than {limit}: not a file Assista wrote. Nothing was changed here.</source>
            <translation>同期フォルダー {target} 内の {file} は {limit} より大きく、Assista が書き込んだファイルではありません。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The S3 URL {url} has no bucket: s3://bucket/prefix.</source>
            <translation>S3 URL {url} にバケットがありません: s3://bucket/prefix。</translation>
        </message>
        <message>
            <source>S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.</source>
            <translation>S3 同期には AWS_ACCESS_KEY_ID と AWS_SECRET_ACCESS_KEY の設定が必要です。</translation>
        </message>
        <message>
            <source>The sync target {target} sent a list of files that cannot be read. Nothing was changed here.</source>
            <translation>同期先 {target} が送ってきたファイル一覧を読み取れません。ここでは何も変更されていません。</translation>
        </message>
        <message>
            <source>The WebDAV URL {url} has no host.</source>
            <translation>WebDAV URL {url} にホストがありません。</translation>
        </message>
        <message>
            <source>Put the WebDAV password in {variable}, not in the URL.</source>
            <translation>WebDAV のパスワードは URL ではなく {variable} に設定してください。</translation>
        </message>
        <message>
            <source>Cannot read {file}.</source>
            <translation>{file} を読み取れません。</translation>
        </message>
        <message>
            <source>{file} is not a file.</source>
            <translation>{file} はファイルではありません。</translation>
        </message>
        <message>
            <source>{file} is empty.</source>
            <translation>{file} は空です。</translation>
        </message>
        <message>
            <source>{file} is not UTF-8 text.</source>
            <translation>{file} は UTF-8 テキストではありません。</translation>
        </message>
        <message>
            <source>{file} is not valid CSV.</source>
            <translation>{file} は有効な CSV ではありません。</translation>
        </message>
        <message>
            <source>{file} is not a PDF (its content does not start like one: a damaged download or another kind of file).</source>
            <translation>{file} は PDF ではありません（内容の先頭が PDF と異なります: ダウンロードの破損か、別の種類のファイルです）。</translation>
        </message>
        <message>
            <source>{file} is password-protected; open it with its password and save an unprotected copy to attach it.</source>
            <translation>{file} はパスワードで保護されています。パスワードで開き、保護されていないコピーを保存してから添付してください。</translation>
        </message>
        <message>
            <source>{file} is too large to attach ({size} MB; the limit is {limit} MB).</source>
            <translation>{file} は大きすぎて添付できません（{size} MB。上限は {limit} MB）。</translation>
        </message>
        <message>
            <source>{file} is too large to read ({size}; the limit is {limit} MB).</source>
            <translation>{file} は大きすぎて読み取れません（{size}。上限は {limit} MB）。</translation>
        </message>
        <message>
            <source>{file} unpacks to more than {limit} MB; it is not read.</source>
            <translation>{file} は展開すると {limit} MB を超えるため、読み取りません。</translation>
        </message>
        <message>
            <source>{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code).</source>
            <translation>{file} はテキストファイルでも対応している文書（PDF、DOCX、XLSX、CSV、PPTX、HTML、EPUB、Markdown、ソースコード）でもありません。</translation>
        </message>
        <message>
            <source>{file} has no text to read.</source>
            <translation>{file} には読み取れるテキストがありません。</translation>
        </message>
        <message>
            <source>{file} has no text to read (scanned pages without a text layer?).</source>
            <translation>{file} には読み取れるテキストがありません（テキストレイヤーのないスキャンページですか？）。</translation>
        </message>
        <message>
            <source>{file} is damaged.</source>
            <translation>{file} は破損しています。</translation>
        </message>
        <message>
            <source>{file} is damaged or not a real {kind} file.</source>
            <translation>{file} は破損しているか、本物の {kind} ファイルではありません。</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>ナレッジベースには名前が必要です。</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>{name} という名前のナレッジベースはすでに存在します。</translation>
        </message>
        <message>
            <source>There is no knowledge base named {name}.</source>
            <translation>{name} という名前のナレッジベースはありません。</translation>
        </message>
        <message>
            <source>No such file or folder: {paths}.</source>
            <translation>そのようなファイルまたはフォルダーはありません: {paths}。</translation>
        </message>
        <message>
            <source>{file} is too large to index.</source>
            <translation>{file} は大きすぎてインデックスを作成できません。</translation>
        </message>
        <message>
            <source>{file} is a link to nothing.</source>
            <translation>{file} はリンク先のないリンクです。</translation>
        </message>
        <message>
            <source>{file} is a link out of the folder (links are followed only inside it).</source>
            <translation>{file} はフォルダーの外を指すリンクです（リンクはフォルダー内でのみたどります）。</translation>
        </message>
        <message>
            <source>There is no embedding API {kind}.</source>
            <translation>埋め込み API {kind} はありません。</translation>
        </message>
        <message>
            <source>Providers of the kind {kind} cannot make embeddings.</source>
            <translation>種類 {kind} のプロバイダーは埋め込みを作成できません。</translation>
        </message>
        <message>
            <source>The embedding request failed.</source>
            <translation>埋め込みリクエストに失敗しました。</translation>
        </message>
        <message>
            <source>The embedding model {model} at {url} cannot be used; nothing was changed.</source>
            <translation>{url} の埋め込みモデル {model} は使用できません。何も変更されていません。</translation>
        </message>
        <message>
            <source>No MCP servers are running.</source>
            <translation>実行中の MCP サーバーはありません。</translation>
        </message>
        <message>
            <source>There is no MCP server named {name}.</source>
            <translation>{name} という名前の MCP サーバーはありません。</translation>
        </message>
        <message>
            <source>There is already an MCP server named {name}.</source>
            <translation>{name} という名前の MCP サーバーはすでに存在します。</translation>
        </message>
        <message>
            <source>The prompt {prompt} needs {names}.</source>
            <translation>プロンプト {prompt} には {names} が必要です。</translation>
        </message>
        <message>
            <source>These values are required: {names}.</source>
            <translation>次の値は必須です: {names}。</translation>
        </message>
        <message>
            <source>The MCP registry could not be read and there is no saved copy yet.</source>
            <translation>MCP レジストリを読み取れず、保存されたコピーもまだありません。</translation>
        </message>
        <message>
            <source>The MCP configuration is not valid JSON (line {line}).</source>
            <translation>MCP 設定が有効な JSON ではありません（{line} 行目）。</translation>
        </message>
        <message>
            <source>Cannot read the MCP configuration {file}.</source>
            <translation>MCP 設定 {file} を読み取れません。</translation>
        </message>
        <message>
            <source>The MCP configuration must be a JSON object with an mcpServers key.</source>
            <translation>MCP 設定は mcpServers キーを持つ JSON オブジェクトである必要があります。</translation>
        </message>
        <message>
            <source>The MCP configuration holds a single server without a name: put it under mcpServers, with its name as the key.</source>
            <translation>MCP 設定に名前のないサーバーが 1 つあります: mcpServers の下に、その名前をキーとして配置してください。</translation>
        </message>
        <message>
            <source>mcpServers must map server names to their settings.</source>
            <translation>mcpServers はサーバー名をその設定に対応付ける必要があります。</translation>
        </message>
        <message>
            <source>The MCP configuration lists no servers.</source>
            <translation>MCP 設定にサーバーが 1 つもありません。</translation>
        </message>
        <message>
            <source>MCP server {server}: its settings must be a JSON object.</source>
            <translation>MCP サーバー {server}: 設定は JSON オブジェクトである必要があります。</translation>
        </message>
        <message>
            <source>MCP server {server}: {key} must be an object of strings.</source>
            <translation>MCP サーバー {server}: {key} は文字列のオブジェクトである必要があります。</translation>
        </message>
        <message>
            <source>MCP server {server}: unknown transport {transport}.</source>
            <translation>MCP サーバー {server}: 不明なトランスポート {transport}。</translation>
        </message>
        <message>
            <source>The settings of MCP server {server} are not valid.</source>
            <translation>MCP サーバー {server} の設定が無効です。</translation>
        </message>
    </context>
    <context>
        <name>ExchangeView</name>
        <message>
            <source>Find in the request</source>
            <translation>リクエスト内を検索</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>リクエスト</translation>
        </message>
        <message>
            <source>Find in the response</source>
            <translation>レスポンス内を検索</translation>
        </message>
        <message>
            <source>Response</source>
            <translation>レスポンス</translation>
        </message>
        <message>
            <source>Find in this event</source>
            <translation>このイベント内を検索</translation>
        </message>
        <message>
            <source>Event</source>
            <translation>イベント</translation>
        </message>
        <message>
            <source>Events (%1)</source>
            <translation>イベント (%1)</translation>
        </message>
        <message>
            <source>Raw bytes (%1)</source>
            <translation>生のバイト列 (%1)</translation>
        </message>
        <message>
            <source>Timings</source>
            <translation>タイミング</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>再生</translation>
        </message>
        <message>
            <source>Stream events</source>
            <translation>ストリームイベント</translation>
        </message>
        <message>
            <source>Arrived</source>
            <translation>到着</translation>
        </message>
        <message>
            <source>Bytes</source>
            <translation>バイト</translation>
        </message>
        <message>
            <source>Raw bytes received</source>
            <translation>受信した生のバイト列</translation>
        </message>
        <message>
            <source>Find in these bytes</source>
            <translation>このバイト列内を検索</translation>
        </message>
        <message>
            <source>Raw bytes</source>
            <translation>生のバイト列</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>データ</translation>
        </message>
        <message>
            <source>%1 (counted from the events)</source>
            <translation>%1 (イベントから集計)</translation>
        </message>
        <message>
            <source>Time to headers</source>
            <translation>ヘッダーまでの時間</translation>
        </message>
        <message>
            <source>Time to first token</source>
            <translation>最初のトークンまでの時間</translation>
        </message>
        <message>
            <source>Time to last token</source>
            <translation>最後のトークンまでの時間</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>合計</translation>
        </message>
        <message>
            <source>Output tokens</source>
            <translation>出力トークン</translation>
        </message>
        <message>
            <source>Tokens per second</source>
            <translation>トークン/秒</translation>
        </message>
        <message>
            <source>Retries</source>
            <translation>再試行</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>Find in this chat</source>
            <translation>このチャット内を検索</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>前の一致 (Shift+Enter)</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>前の一致</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>次の一致 (Enter)</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>次の一致</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>閉じる (Esc)</translation>
        </message>
        <message>
            <source>Close the find bar</source>
            <translation>検索バーを閉じる</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>一致なし</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n 件の一致</numerusform>
            </translation>
        </message>
        <message>
            <source>{current} of {total}</source>
            <translation>{current} / {total}</translation>
        </message>
    </context>
    <context>
        <name>FindableText</name>
        <message>
            <source>Find</source>
            <translation>検索</translation>
        </message>
        <message numerus="yes">
            <source>%n found</source>
            <translation>
                <numerusform>%n 件見つかりました</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>GlobalShortcut</name>
        <message>
            <source>Open the Assista quick-ask window</source>
            <translation>Assista のクイック質問ウィンドウを開く</translation>
        </message>
        <message>
            <source>Registered with the desktop as {trigger}.</source>
            <translation>デスクトップに {trigger} として登録しました。</translation>
        </message>
        <message>
            <source>Registered: {shortcut} opens quick ask from any application.</source>
            <translation>登録しました: {shortcut} でどのアプリからでもクイック質問を開けます。</translation>
        </message>
        <message>
            <source>Waiting for the desktop to confirm the shortcut…</source>
            <translation>デスクトップがショートカットを確認するのを待っています…</translation>
        </message>
        <message>
            <source>{shortcut} is taken by another program: choose another combination.</source>
            <translation>{shortcut} はほかのプログラムが使用しています。別の組み合わせを選んでください。</translation>
        </message>
        <message>
            <source>The desktop did not allow the shortcut. Choose it again, or bind the command “assista quick --selection” in the desktop's keyboard settings.</source>
            <translation>デスクトップがショートカットを許可しませんでした。もう一度選ぶか、デスクトップのキーボード設定でコマンド「assista quick --selection」を割り当ててください。</translation>
        </message>
        <message>
            <source>Not available on this desktop: bind the command “assista quick --selection” to a shortcut in the desktop's keyboard settings.</source>
            <translation>このデスクトップでは使えません。デスクトップのキーボード設定でコマンド「assista quick --selection」をショートカットに割り当ててください。</translation>
        </message>
        <message>
            <source>No global shortcut. The command “assista quick --selection” can be bound to one in the desktop's keyboard settings.</source>
            <translation>グローバルショートカットはありません。デスクトップのキーボード設定でコマンド「assista quick --selection」を割り当てられます。</translation>
        </message>
        <message>
            <source>A global shortcut needs Ctrl, Alt or Meta with the key: on its own the key could not be typed anywhere else.</source>
            <translation>グローバルショートカットにはキーと一緒に Ctrl、Alt または Meta が必要です。キー単独では他の場所で入力できなくなります。</translation>
        </message>
        <message>
            <source>This key cannot be part of a global shortcut: choose a letter, digit, function key, Space or an arrow key.</source>
            <translation>このキーはグローバルショートカットに使えません。文字、数字、ファンクションキー、Space または矢印キーを選んでください。</translation>
        </message>
        <message>
            <source>A global shortcut is one key with Ctrl, Alt or Meta, not a sequence of keys.</source>
            <translation>グローバルショートカットは Ctrl、Alt または Meta と一つのキーの組み合わせで、キーの連続ではありません。</translation>
        </message>
    </context>
    <context>
        <name>HitDelegate</name>
        <message>
            <source>You</source>
            <translation>あなた</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>アシスタント</translation>
        </message>
        <message>
            <source>Tool result</source>
            <translation>ツールの結果</translation>
        </message>
        <message>
            <source>System</source>
            <translation>システム</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>タイトル</translation>
        </message>
        <message>
            <source>archived</source>
            <translation>アーカイブ済み</translation>
        </message>
    </context>
    <context>
        <name>ImportExport</name>
        <message>
            <source>Open a chat to export it (or use Export all chats…).</source>
            <translation>エクスポートするチャットを開いてください(または「すべてのチャットをエクスポート…」を使用)。</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>チャットをエクスポート</translation>
        </message>
        <message>
            <source>Export all chats</source>
            <translation>すべてのチャットをエクスポート</translation>
        </message>
        <message>
            <source>Import chats</source>
            <translation>チャットをインポート</translation>
        </message>
        <message>
            <source>all chats</source>
            <translation>すべてのチャット</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n 件のチャット</numerusform>
            </translation>
        </message>
        <message>
            <source>Export to {file} failed: {error}</source>
            <translation>{file} へのエクスポートに失敗しました: {error}</translation>
        </message>
        <message>
            <source>Exported {what} as {format} to {file} ({size} bytes).</source>
            <translation>{what}を {format} 形式で {file} にエクスポートしました({size} バイト)。</translation>
        </message>
        <message>
            <source>Import of {file} failed: {error}</source>
            <translation>{file} のインポートに失敗しました: {error}</translation>
        </message>
        <message>
            <source>Import finished</source>
            <translation>インポートが完了しました</translation>
        </message>
    </context>
    <context>
        <name>InspectorPanel</name>
        <message>
            <source>HTTP status: %1</source>
            <translation>HTTP ステータス: %1</translation>
        </message>
        <message>
            <source>Retries:</source>
            <translation>再試行:</translation>
        </message>
        <message>
            <source>  attempt %1 at %2, waited %3 s: %4</source>
            <translation>  試行 %1 (%2)、待機 %3 秒: %4</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>エラー: %1</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>リクエストインスペクター</translation>
        </message>
        <message>
            <source>Request</source>
            <translation>リクエスト</translation>
        </message>
        <message>
            <source>Request %1 of %2: %3 · %4 · HTTP %5</source>
            <translation>リクエスト %1/%2: %3 · %4 · HTTP %5</translation>
        </message>
        <message>
            <source>Copy as curl</source>
            <translation>curl としてコピー</translation>
        </message>
        <message>
            <source>The request as a curl command; the key is an environment variable, never the key itself</source>
            <translation>リクエストを curl コマンドとして。キーは環境変数で示し、キーそのものは含めません</translation>
        </message>
        <message>
            <source>Copy as JSON</source>
            <translation>JSON としてコピー</translation>
        </message>
        <message>
            <source>Everything recorded for this request, redacted</source>
            <translation>このリクエストについて記録したすべて(秘匿情報は伏せ字)</translation>
        </message>
        <message>
            <source>%1 · %2 · HTTP %3 · %4</source>
            <translation>%1 · %2 · HTTP %3 · %4</translation>
        </message>
        <message>
            <source>Copied the curl command.</source>
            <translation>curl コマンドをコピーしました。</translation>
        </message>
        <message>
            <source>Copied the record as JSON.</source>
            <translation>記録を JSON としてコピーしました。</translation>
        </message>
    </context>
    <context>
        <name>InspectorSettings</name>
        <message>
            <source>Record every request sent to a model</source>
            <translation>モデルに送るすべてのリクエストを記録</translation>
        </message>
        <message>
            <source>What was sent (keys and tokens hidden), what came back and the timings, for Inspect on each answer and assista inspect</source>
            <translation>送信内容(キーとトークンは伏せ字)、受信内容、タイミングを記録し、各回答の「検査」と assista inspect で使います</translation>
        </message>
        <message>
            <source>Recording</source>
            <translation>記録</translation>
        </message>
        <message>
            <source> days</source>
            <translation> 日</translation>
        </message>
        <message>
            <source>Keep recorded requests for</source>
            <translation>記録したリクエストの保存期間</translation>
        </message>
        <message>
            <source>Keep for</source>
            <translation>保存期間</translation>
        </message>
        <message>
            <source> MB</source>
            <translation> MB</translation>
        </message>
        <message>
            <source>Largest size of the recorded requests</source>
            <translation>記録するリクエストの最大サイズ</translation>
        </message>
        <message>
            <source>At most</source>
            <translation>最大</translation>
        </message>
        <message>
            <source>The oldest requests are deleted first, when the app starts and after each answer. They are kept in inspector.sqlite in the data folder, apart from the chats (not synced).</source>
            <translation>古いリクエストから、アプリの起動時と各回答の後に削除されます。データフォルダーの inspector.sqlite にチャットとは別に保存されます(同期されません)。</translation>
        </message>
        <message>
            <source>Delete all recorded requests</source>
            <translation>記録したリクエストをすべて削除</translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n recorded requests.</source>
            <translation>
                <numerusform>記録したリクエストを %n 件削除しました。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDetail</name>
        <message>
            <source>Folders and files of the knowledge base</source>
            <translation>ナレッジベースのフォルダーとファイル</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>フォルダーを追加…</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>ファイルを追加…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Stop indexing the selected folder or file</source>
            <translation>選択したフォルダーまたはファイルのインデックス作成をやめる</translation>
        </message>
        <message>
            <source>Embedding provider</source>
            <translation>埋め込みプロバイダー</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>埋め込みモデル</translation>
        </message>
        <message>
            <source>e.g. text-embedding-3-small, nomic-embed-text, gemini-embedding-001</source>
            <translation>例: text-embedding-3-small、nomic-embed-text、gemini-embedding-001</translation>
        </message>
        <message>
            <source>Search it in the open chat</source>
            <translation>開いているチャットで検索する</translation>
        </message>
        <message>
            <source>Assistants…</source>
            <translation>アシスタント…</translation>
        </message>
        <message>
            <source>Every chat with a checked assistant searches this knowledge base</source>
            <translation>チェックしたアシスタントを使うチャットはすべて、このナレッジベースを検索します</translation>
        </message>
        <message>
            <source>Embeddings</source>
            <translation>埋め込み</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Used by</source>
            <translation>使用するアシスタント</translation>
        </message>
        <message>
            <source>Folders and files</source>
            <translation>フォルダーとファイル</translation>
        </message>
        <message>
            <source>Index now</source>
            <translation>今すぐインデックス作成</translation>
        </message>
        <message>
            <source>Indexing progress</source>
            <translation>インデックス作成の進行状況</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>キャンセル</translation>
        </message>
        <message>
            <source>Cancel indexing</source>
            <translation>インデックス作成をキャンセル</translation>
        </message>
        <message>
            <source>No knowledge base yet</source>
            <translation>ナレッジベースはまだありません</translation>
        </message>
        <message>
            <source>Full text only</source>
            <translation>全文検索のみ</translation>
        </message>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n 個のファイル</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passages</source>
            <translation>
                <numerusform>%n 個の断片</numerusform>
            </translation>
        </message>
        <message>
            <source>{added} added, {updated} changed, {removed} removed, {unchanged} unchanged in {seconds} s</source>
            <translation>追加 {added}、変更 {updated}、削除 {removed}、変更なし {unchanged}({seconds} 秒)</translation>
        </message>
        <message numerus="yes">
            <source>%n files could not be read: </source>
            <translation>
                <numerusform>%n 個のファイルを読み取れませんでした: </numerusform>
            </translation>
        </message>
        <message>
            <source>{files}, {chunks}; not indexed yet</source>
            <translation>{files}、{chunks}。まだインデックスなし</translation>
        </message>
        <message>
            <source>{files}, {chunks}; indexed {when}</source>
            <translation>{files}、{chunks}。インデックス作成: {when}</translation>
        </message>
        <message>
            <source>No assistants yet</source>
            <translation>アシスタントはまだありません</translation>
        </message>
        <message>
            <source>Looking for files…</source>
            <translation>ファイルを探しています…</translation>
        </message>
        <message>
            <source>Computing embeddings…</source>
            <translation>埋め込みを計算中…</translation>
        </message>
        <message>
            <source>{done} of {total}: {path}</source>
            <translation>{done}/{total}: {path}</translation>
        </message>
        <message>
            <source>Indexing failed: {error}</source>
            <translation>インデックス作成に失敗しました: {error}</translation>
        </message>
        <message>
            <source>; {n} passages embedded</source>
            <translation>、{n} 個の断片を埋め込み済み</translation>
        </message>
        <message>
            <source> (cancelled: what was done is kept)</source>
            <translation> (キャンセル: 完了分は残ります)</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>フォルダーを追加</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>ファイルを追加</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeDialog</name>
        <message>
            <source>Knowledge</source>
            <translation>ナレッジ</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>ナレッジベース</translation>
        </message>
        <message>
            <source>New…</source>
            <translation>新規…</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>名前を変更…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>New knowledge base</source>
            <translation>新しいナレッジベース</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>名前:</translation>
        </message>
        <message>
            <source>There is already a knowledge base named {name}.</source>
            <translation>{name} という名前のナレッジベースはすでにあります。</translation>
        </message>
        <message>
            <source>Rename knowledge base</source>
            <translation>ナレッジベースの名前を変更</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>ナレッジベースを削除</translation>
        </message>
        <message>
            <source>Delete {name} and its index? Your files are not touched.</source>
            <translation>{name} とそのインデックスを削除しますか? ファイル自体は変更されません。</translation>
        </message>
    </context>
    <context>
        <name>LanguageChoice</name>
        <message>
            <source>Language</source>
            <translation>言語</translation>
        </message>
        <message>
            <source>A new language shows after the app is restarted.</source>
            <translation>新しい言語はアプリの再起動後に反映されます。</translation>
        </message>
    </context>
    <context>
        <name>Languages</name>
        <message>
            <source>System default</source>
            <extracomment>Languages with a complete translation: setting value -&gt; name in that language.</extracomment>
            <translation>システムの既定</translation>
        </message>
    </context>
    <context>
        <name>Launch</name>
        <message>
            <source> and </source>
            <translation>と</translation>
        </message>
        <message>
            <source>Found {servers} running on this computer</source>
            <translation>このコンピューターで {servers} が動作しています</translation>
        </message>
        <message>
            <source>{app} could not open its data folder:

{error}</source>
            <translation>{app} はデータフォルダーを開けませんでした:

{error}</translation>
        </message>
        <message>
            <source>{app} is already running with the data in {folder}. Close it first, or start with --data-dir.</source>
            <translation>{app} は {folder} のデータですでに動作しています。先に終了するか、--data-dir を付けて起動してください。</translation>
        </message>
        <message>
            <source>{app} could not open its data:

{error}</source>
            <translation>{app} はデータを開けませんでした:

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
            <translation>開いています…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <extracomment>The menus in order (the skeleton shows them disabled until the real ones replace them)</extracomment>
            <translation>ファイル(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;New chat</source>
            <translation>新しいチャット(&amp;N)</translation>
        </message>
        <message>
            <source>New t&amp;emporary chat</source>
            <translation>新しい一時チャット(&amp;E)</translation>
        </message>
        <message>
            <source>Choose &amp;workspace folder…</source>
            <translation>作業フォルダーを選択(&amp;W)…</translation>
        </message>
        <message>
            <source>Install &amp;extension…</source>
            <translation>拡張機能をインストール(&amp;E)…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>終了(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Settings</source>
            <translation>設定(&amp;S)</translation>
        </message>
        <message>
            <source>P&amp;references…</source>
            <translation>環境設定(&amp;R)…</translation>
        </message>
        <message>
            <source>&amp;Providers…</source>
            <translation>プロバイダー(&amp;P)…</translation>
        </message>
        <message>
            <source>Model p&amp;rices…</source>
            <translation>モデル料金(&amp;R)…</translation>
        </message>
        <message>
            <source>&amp;Tools…</source>
            <translation>ツール(&amp;T)…</translation>
        </message>
        <message>
            <source>&amp;MCP servers…</source>
            <translation>MCP サーバー(&amp;M)…</translation>
        </message>
        <message>
            <source>&amp;Knowledge…</source>
            <translation>ナレッジ(&amp;K)…</translation>
        </message>
        <message>
            <source>S&amp;ync…</source>
            <translation>同期(&amp;Y)…</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>表示(&amp;V)</translation>
        </message>
        <message>
            <source>Toggle &amp;tool activity</source>
            <translation>ツールの動作を表示/非表示(&amp;T)</translation>
        </message>
        <message>
            <source>Show &amp;chat list</source>
            <translation>チャット一覧を表示(&amp;C)</translation>
        </message>
        <message>
            <source>Focus &amp;message box</source>
            <translation>メッセージ欄へ移動(&amp;M)</translation>
        </message>
        <message>
            <source>Go to pending &amp;approval</source>
            <translation>保留中の承認へ移動(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>ヘルプ(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>キーボードショートカット(&amp;K)</translation>
        </message>
        <message>
            <source>Open &amp;log folder</source>
            <translation>ログフォルダーを開く(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>バージョン情報(&amp;A)</translation>
        </message>
        <message>
            <source>Stopped at the tool-round limit</source>
            <translation>ツール実行回数の上限で停止しました</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>停止しました</translation>
        </message>
        <message>
            <source>Add a provider to start chatting.</source>
            <translation>チャットを始めるにはプロバイダーを追加してください。</translation>
        </message>
        <message>
            <source>Preferences saved</source>
            <translation>環境設定を保存しました</translation>
        </message>
        <message>
            <source>Choose workspace folder</source>
            <translation>作業フォルダーを選択</translation>
        </message>
        <message>
            <source>Install extension</source>
            <translation>拡張機能をインストール</translation>
        </message>
        <message>
            <source>MCP bundles (*.mcpb *.dxt)</source>
            <translation>MCP バンドル (*.mcpb *.dxt)</translation>
        </message>
    </context>
    <context>
        <name>McpAttachMenu</name>
        <message>
            <source>Files…</source>
            <translation>ファイル…</translation>
        </message>
        <message>
            <source>From MCP server…</source>
            <translation>MCP サーバーから…</translation>
        </message>
        <message>
            <source>Read again from {0}: the server changed it</source>
            <translation>{0} から再読み込みしました: サーバー側で変更されています</translation>
        </message>
    </context>
    <context>
        <name>McpCatalogDialog</name>
        <message>
            <source>MCP server catalog</source>
            <translation>MCP サーバーカタログ</translation>
        </message>
        <message>
            <source>Search servers</source>
            <translation>サーバーを検索</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>更新</translation>
        </message>
        <message>
            <source>Read the registry again</source>
            <translation>レジストリを再読み込み</translation>
        </message>
        <message>
            <source>Servers in the catalog</source>
            <translation>カタログ内のサーバー</translation>
        </message>
        <message>
            <source>How to install</source>
            <translation>インストール方法</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>サーバーを追加</translation>
        </message>
        <message>
            <source>Showing the saved copy; reading the registry…</source>
            <translation>保存したコピーを表示中。レジストリを読み込んでいます…</translation>
        </message>
        <message>
            <source>Reading the MCP registry…</source>
            <translation>MCP レジストリを読み込んでいます…</translation>
        </message>
        <message>
            <source>Offline ({0}): showing the copy saved on {1}.</source>
            <translation>オフライン({0}): {1} に保存したコピーを表示しています。</translation>
        </message>
        <message numerus="yes">
            <source>%n server(s)</source>
            <translation>
                <numerusform>%n 個のサーバー</numerusform>
            </translation>
        </message>
        <message>
            <source>Choose a server</source>
            <translation>サーバーを選択</translation>
        </message>
        <message>
            <source>This server has no package or address the app can install (for example a container image).</source>
            <translation>このサーバーには、アプリがインストールできるパッケージやアドレスがありません(例: コンテナーイメージ)。</translation>
        </message>
        <message>
            <source>Cannot add it: {0}</source>
            <translation>追加できません: {0}</translation>
        </message>
    </context>
    <context>
        <name>McpClientFields</name>
        <message>
            <source>only if its sign-in asks for an app registered by hand</source>
            <translation>サインインで手動登録したアプリが必要な場合のみ</translation>
        </message>
        <message>
            <source>stored in the keyring; type to replace it</source>
            <translation>キーリングに保存済み。入力すると置き換えます</translation>
        </message>
        <message>
            <source>optional; kept in the keyring</source>
            <translation>任意。キーリングに保存されます</translation>
        </message>
        <message>
            <source>any free port</source>
            <translation>空いている任意のポート</translation>
        </message>
        <message>
            <source>The port of the redirect URL registered with the app, if its sign-in wants an exact one</source>
            <translation>アプリに登録したリダイレクト URL のポート(サインインで特定のポートが必要な場合)</translation>
        </message>
        <message>
            <source>Client &amp;ID</source>
            <translation>クライアント ID(&amp;I)</translation>
        </message>
        <message>
            <source>Client s&amp;ecret</source>
            <translation>クライアントシークレット(&amp;E)</translation>
        </message>
        <message>
            <source>Callback &amp;port</source>
            <translation>コールバックポート(&amp;P)</translation>
        </message>
        <message>
            <source>Redirect URL to register:
{address}</source>
            <translation>登録するリダイレクト URL:
{address}</translation>
        </message>
    </context>
    <context>
        <name>McpDialog</name>
        <message>
            <source>MCP servers</source>
            <translation>MCP サーバー</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one (a command such as “npx -y @modelcontextprotocol/server-filesystem ~/notes”, or a URL), or import your Claude Desktop configuration.</source>
            <translation>MCP サーバーはまだありません。追加するか(「npx -y @modelcontextprotocol/server-filesystem ~/notes」のようなコマンド、または URL)、Claude Desktop の設定をインポートしてください。</translation>
        </message>
        <message>
            <source>Save and start</source>
            <translation>保存して起動</translation>
        </message>
        <message>
            <source>Save the servers and (re)start them</source>
            <translation>サーバーを保存して(再)起動します</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>追加</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>インポート</translation>
        </message>
        <message>
            <source>From a file…</source>
            <translation>ファイルから…</translation>
        </message>
        <message>
            <source>Paste JSON…</source>
            <translation>JSON を貼り付け…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>new — say how to reach it, then Save</source>
            <translation>新規 — 接続方法を入力して保存してください</translation>
        </message>
        <message>
            <source>switched off</source>
            <translation>オフ</translation>
        </message>
        <message>
            <source>not started — Save to start it</source>
            <translation>未起動 — 保存すると起動します</translation>
        </message>
        <message>
            <source>failed: {error}</source>
            <translation>失敗: {error}</translation>
        </message>
        <message>
            <source>no reason given</source>
            <translation>理由は不明</translation>
        </message>
        <message>
            <source>starting…</source>
            <translation>起動中…</translation>
        </message>
        <message>
            <source>restarting…</source>
            <translation>再起動中…</translation>
        </message>
        <message>
            <source> (last error: {error})</source>
            <translation> (前回のエラー: {error})</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>停止</translation>
        </message>
        <message>
            <source> · changes not applied yet (Save)</source>
            <translation> · 変更はまだ反映されていません(保存)</translation>
        </message>
        <message>
            <source>(no name)</source>
            <translation>(名前なし)</translation>
        </message>
        <message>
            <source>Remove MCP server</source>
            <translation>MCP サーバーを削除</translation>
        </message>
        <message>
            <source>Remove {name}? Its tools leave every chat, and its stored keys and sign-in are deleted, when you Save.</source>
            <translation>{name} を削除しますか? 保存すると、そのツールはすべてのチャットから外れ、保存されたキーとサインイン情報も削除されます。</translation>
        </message>
        <message>
            <source>Removed {name}. Save to stop it.</source>
            <translation>{name} を削除しました。保存すると停止します。</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>MCP サーバーをインポート</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>JSON ファイル (*.json);;すべてのファイル (*)</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n servers: {names}. Save to start them.</source>
            <translation>
                <numerusform>%n 個のサーバーをインポートしました: {names}。保存すると起動します。</numerusform>
            </translation>
        </message>
        <message>
            <source>There are two servers named {name}; rename one.</source>
            <translation>{name} という名前のサーバーが 2 つあります。どちらかの名前を変えてください。</translation>
        </message>
        <message>
            <source>Saved. Starting the servers…</source>
            <translation>保存しました。サーバーを起動しています…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>保存しました。</translation>
        </message>
        <message>
            <source>{name} is not started: Save to start it.</source>
            <translation>{name} は起動していません。保存すると起動します。</translation>
        </message>
        <message>
            <source>This server</source>
            <translation>このサーバー</translation>
        </message>
        <message>
            <source>Restarting {name}…</source>
            <translation>{name} を再起動しています…</translation>
        </message>
        <message>
            <source>You have unsaved changes: Save them, or press Close again to discard them.</source>
            <translation>保存していない変更があります。保存するか、もう一度「閉じる」を押して破棄してください。</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>参照</translation>
        </message>
        <message>
            <source>Servers listed in the official MCP registry</source>
            <translation>公式 MCP レジストリに掲載されたサーバー</translation>
        </message>
    </context>
    <context>
        <name>McpResourceDialog</name>
        <message>
            <source>Attach from an MCP server</source>
            <translation>MCP サーバーから添付</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>リソース</translation>
        </message>
        <message>
            <source>Attach</source>
            <translation>添付</translation>
        </message>
        <message>
            <source>No running MCP server offers resources.</source>
            <translation>リソースを提供している起動中の MCP サーバーはありません。</translation>
        </message>
        <message>
            <source>Reading {0}…</source>
            <translation>{0} を読み込んでいます…</translation>
        </message>
        <message>
            <source>Cannot attach {0}: {1}</source>
            <translation>{0} を添付できません: {1}</translation>
        </message>
    </context>
    <context>
        <name>McpServerForm</name>
        <message>
            <source>Command (stdio)</source>
            <translation>コマンド (stdio)</translation>
        </message>
        <message>
            <source>URL (Streamable HTTP)</source>
            <translation>URL (Streamable HTTP)</translation>
        </message>
        <message>
            <source>URL (SSE, legacy)</source>
            <translation>URL (SSE、旧方式)</translation>
        </message>
        <message>
            <source>line {number}: write it as {example}</source>
            <translation>{number} 行目: {example} の形式で書いてください</translation>
        </message>
        <message>
            <source>Shown in lists; also the prefix of its tools' names</source>
            <translation>一覧に表示される名前。ツール名の接頭辞にもなります</translation>
        </message>
        <message>
            <source>Start this server</source>
            <translation>このサーバーを起動する</translation>
        </message>
        <message>
            <source>npx, uvx, python, /path/to/server…</source>
            <translation>npx、uvx、python、/path/to/server…</translation>
        </message>
        <message>
            <source>-y @modelcontextprotocol/server-filesystem "~/My notes"</source>
            <translation>-y @modelcontextprotocol/server-filesystem "~/メモ"</translation>
        </message>
        <message>
            <source>KEY=value, one per line</source>
            <translation>KEY=value(1 行に 1 つ)</translation>
        </message>
        <message>
            <source>working folder (optional)</source>
            <translation>作業フォルダー(任意)</translation>
        </message>
        <message>
            <source>https://example.com/mcp</source>
            <translation>https://example.com/mcp</translation>
        </message>
        <message>
            <source>Authorization: Bearer …, one per line</source>
            <translation>Authorization: Bearer …(1 行に 1 つ)</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>名前(&amp;N)</translation>
        </message>
        <message>
            <source>&amp;Connect with</source>
            <translation>接続方法(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>コマンド(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Arguments</source>
            <translation>引数(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Environment</source>
            <translation>環境変数(&amp;E)</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>フォルダー(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;URL</source>
            <translation>URL(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Headers</source>
            <translation>ヘッダー(&amp;H)</translation>
        </message>
        <message>
            <source>Sign-in app</source>
            <translation>サインイン用アプリ</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>サーバーの stderr</translation>
        </message>
        <message>
            <source>Server status</source>
            <translation>サーバーの状態</translation>
        </message>
        <message>
            <source>Restart</source>
            <translation>再起動</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>stderr を表示</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>On</source>
            <translation>オン</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>ポリシー</translation>
        </message>
        <message>
            <source>Tools of this server</source>
            <translation>このサーバーのツール</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>環境変数</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>ヘッダー</translation>
        </message>
        <message>
            <source>Arguments: a quotation mark is not closed, or the text ends with a backslash.</source>
            <translation>引数: 引用符が閉じられていないか、テキストがバックスラッシュで終わっています。</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>{tool} のポリシー</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>既定({policy})</translation>
        </message>
        <message>
            <source>Settings → Tools sets this tool to {policy}, which wins over this choice</source>
            <translation>設定 → ツールでこのツールは {policy} に設定されており、こちらより優先されます</translation>
        </message>
        <message>
            <source>Sign in to use its tools.</source>
            <translation>ツールを使うにはサインインしてください。</translation>
        </message>
        <message>
            <source>Its tools are listed here once it runs.</source>
            <translation>起動すると、ここにツールが表示されます。</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>stderr を隠す</translation>
        </message>
        <message>
            <source>(the server is not started)</source>
            <translation>(サーバーは起動していません)</translation>
        </message>
        <message>
            <source>(nothing written yet)</source>
            <translation>(まだ出力はありません)</translation>
        </message>
    </context>
    <context>
        <name>McpSignInRow</name>
        <message>
            <source>Sign-in status</source>
            <translation>サインインの状態</translation>
        </message>
        <message>
            <source>Sign in</source>
            <translation>サインイン</translation>
        </message>
        <message>
            <source>Sign in to this server in your browser</source>
            <translation>ブラウザーでこのサーバーにサインイン</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>サインアウト</translation>
        </message>
        <message>
            <source>Forget this server's sign-in</source>
            <translation>このサーバーのサインイン情報を削除</translation>
        </message>
        <message>
            <source>Cancel sign-in</source>
            <translation>サインインをキャンセル</translation>
        </message>
        <message>
            <source>Stop waiting for the browser</source>
            <translation>ブラウザーを待つのをやめる</translation>
        </message>
        <message>
            <source>Signing out…</source>
            <translation>サインアウトしています…</translation>
        </message>
        <message>
            <source>Waiting for you to finish signing in in the browser…</source>
            <translation>ブラウザーでのサインインが終わるのを待っています…</translation>
        </message>
        <message>
            <source>This server needs you to sign in.</source>
            <translation>このサーバーにはサインインが必要です。</translation>
        </message>
        <message>
            <source>Signed in.</source>
            <translation>サインインしました。</translation>
        </message>
        <message>
            <source>No sign-in used.</source>
            <translation>サインインは使っていません。</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotices</name>
        <message>
            <source>Memory removed: {fact}</source>
            <translation>メモリーを削除しました: {fact}</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>元に戻す</translation>
        </message>
        <message>
            <source>Memory saved: {fact}</source>
            <translation>メモリーを保存しました: {fact}</translation>
        </message>
    </context>
    <context>
        <name>MemoryPage</name>
        <message>
            <source>Remember facts about me across chats</source>
            <translation>チャットをまたいで私に関する事実を覚える</translation>
        </message>
        <message>
            <source>Off: memory is paused; no memory is sent to the model and none is saved</source>
            <translation>オフ: メモリーは一時停止中です。モデルにメモリーは送られず、保存もされません</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>メモリー</translation>
        </message>
        <message>
            <source>When the assistant wants to remember something</source>
            <translation>アシスタントが何かを覚えようとしたとき</translation>
        </message>
        <message>
            <source>Ask me first</source>
            <translation>先に確認する</translation>
        </message>
        <message>
            <source>Save without asking</source>
            <translation>確認せずに保存</translation>
        </message>
        <message>
            <source>New memories</source>
            <translation>新しいメモリー</translation>
        </message>
        <message>
            <source>Say “remember that…” in a chat, or the assistant may propose a memory. Memories stay on this computer; they are in exports and sync (encrypted), and are sent only in the system prompt of your chats. Temporary chats use none.</source>
            <translation>チャットで「…を覚えて」と言うか、アシスタントがメモリーを提案します。メモリーはこのコンピューターに保存され、エクスポートと同期（暗号化）に含まれ、チャットのシステムプロンプトでのみ送信されます。一時チャットでは使われません。</translation>
        </message>
        <message>
            <source>Search memories…</source>
            <translation>メモリーを検索…</translation>
        </message>
        <message>
            <source>Search memories</source>
            <translation>メモリーを検索</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>メモリー</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>編集…</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Delete all…</source>
            <translation>すべて削除…</translation>
        </message>
        <message>
            <source>In a project only</source>
            <translation>1 つのプロジェクト内のみ</translation>
        </message>
        <message>
            <source>In every chat</source>
            <translation>すべてのチャットで</translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n 件のメモリー</numerusform>
            </translation>
        </message>
        <message>
            <source>No memory matches the search.</source>
            <translation>検索に一致するメモリーはありません。</translation>
        </message>
        <message>
            <source>No memories yet.</source>
            <translation>メモリーはまだありません。</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>メモリーを編集</translation>
        </message>
        <message>
            <source>What the assistant remembers:</source>
            <translation>アシスタントが覚えている内容:</translation>
        </message>
        <message>
            <source>Delete all memories</source>
            <translation>すべてのメモリーを削除</translation>
        </message>
        <message>
            <source>Delete every memory? The assistant forgets all it knows about you; this cannot be undone.</source>
            <translation>すべてのメモリーを削除しますか？アシスタントはあなたについて知っていることをすべて忘れます。元に戻せません。</translation>
        </message>
        <message>
            <source>Delete all</source>
            <translation>すべて削除</translation>
        </message>
    </context>
    <context>
        <name>MessageAccessibility</name>
        <message>
            <source>Code block, {language}</source>
            <translation>コードブロック、{language}</translation>
        </message>
        <message>
            <source>plain text</source>
            <translation>プレーンテキスト</translation>
        </message>
        <message>
            <source>Equation</source>
            <translation>数式</translation>
        </message>
        <message>
            <source>Quote</source>
            <translation>引用</translation>
        </message>
        <message>
            <source>Table, {rows} rows, {columns} columns</source>
            <translation>表、{rows} 行 {columns} 列</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推論</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>あなたのメッセージ</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>メッセージ</translation>
        </message>
        <message>
            <source>Being written</source>
            <translation>作成中</translation>
        </message>
    </context>
    <context>
        <name>MessageHeader</name>
        <message>
            <source>Copy</source>
            <extracomment>Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.</extracomment>
            <translation>コピー</translation>
        </message>
        <message>
            <source>Copy this message as Markdown (the arrow has more)</source>
            <translation>このメッセージを Markdown でコピー(矢印からほかの形式も選べます)</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>メッセージをコピー</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>その他の操作</translation>
        </message>
        <message>
            <source>More: continue, fork into a new chat, delete</source>
            <translation>その他: 続きを書かせる、新しいチャットに分岐、削除</translation>
        </message>
        <message>
            <source>Continue this answer</source>
            <translation>この回答の続きを書かせる</translation>
        </message>
        <message>
            <source>Fork into a new chat from here</source>
            <translation>ここから新しいチャットに分岐</translation>
        </message>
        <message>
            <source>Ask other models…</source>
            <translation>ほかのモデルに聞く…</translation>
        </message>
        <message>
            <source>Delete this and what follows…</source>
            <translation>これ以降を削除…</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>読み上げ</translation>
        </message>
        <message>
            <source>Preview this page…</source>
            <translation>このページをプレビュー…</translation>
        </message>
        <message>
            <source>Opens in your browser: this runs the model's code, with every network request blocked</source>
            <translation>ブラウザーで開きます：モデルのコードを実行し、すべてのネットワーク要求はブロックされます</translation>
        </message>
        <message>
            <source>Inspect the request…</source>
            <translation>リクエストを検査…</translation>
        </message>
        <message>
            <source>What was sent, what came back, timings, Replay</source>
            <translation>送信内容、受信内容、タイミング、再生</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Reasoning</source>
            <translation>推論の過程</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>推論を表示</translation>
        </message>
        <message>
            <source>You asked to continue · {time}</source>
            <translation>続きを依頼 · {time}</translation>
        </message>
        <message>
            <source>You · {time}</source>
            <translation>あなた · {time}</translation>
        </message>
        <message>
            <source>Assistant · {model} · {time}</source>
            <translation>アシスタント · {model} · {time}</translation>
        </message>
        <message>
            <source>Assistant · {time}</source>
            <translation>アシスタント · {time}</translation>
        </message>
        <message>
            <source>■ Stopped</source>
            <translation>■ 停止しました</translation>
        </message>
        <message>
            <source>⚠ Interrupted — the app closed while this answer was streaming</source>
            <translation>⚠ 中断 — この回答の受信中にアプリが終了しました</translation>
        </message>
        <message>
            <source>Show more</source>
            <translation>さらに表示</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>折りたたむ</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>考えています…</translation>
        </message>
        <message>
            <source>Thought for {seconds} s</source>
            <translation>{seconds} 秒考えました</translation>
        </message>
        <message>
            <source>Copy message as Markdown</source>
            <translation>メッセージを Markdown でコピー</translation>
        </message>
        <message>
            <source>Copy message as plain text</source>
            <translation>メッセージをプレーンテキストでコピー</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>Markdown としてコピー</translation>
        </message>
        <message>
            <source>Copy as plain text</source>
            <translation>プレーンテキストとしてコピー</translation>
        </message>
        <message>
            <source>Copy code block {number}: {start}</source>
            <translation>コードブロック {number} をコピー: {start}</translation>
        </message>
    </context>
    <context>
        <name>MicButton</name>
        <message>
            <source>Recording… click to stop</source>
            <translation>録音中…クリックで停止</translation>
        </message>
        <message>
            <source>Stop and write down what you said</source>
            <translation>停止して話した内容を文字にする</translation>
        </message>
        <message>
            <source>Stop dictation</source>
            <translation>音声入力を停止</translation>
        </message>
        <message>
            <source>Writing it down…</source>
            <translation>文字にしています…</translation>
        </message>
        <message>
            <source>Your recording is being written down</source>
            <translation>録音を文字にしています</translation>
        </message>
        <message>
            <source>Transcribing</source>
            <translation>文字起こし中</translation>
        </message>
        <message>
            <source>Dictate (failed)</source>
            <translation>音声入力（失敗）</translation>
        </message>
        <message>
            <source>Dictate: record what you say, then edit the text before sending</source>
            <translation>音声入力：話した内容を録音し、送信前にテキストを編集できます</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>音声入力</translation>
        </message>
    </context>
    <context>
        <name>ModelPicker</name>
        <message>
            <source>Search models, or type a model id</source>
            <translation>モデルを検索、またはモデル ID を入力</translation>
        </message>
        <message>
            <source>Search models</source>
            <translation>モデルを検索</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>No model matches. Press Enter to use the text as a model id.</source>
            <translation>一致するモデルがありません。Enter を押すと、入力した文字列をモデル ID として使います。</translation>
        </message>
        <message>
            <source>A model id has no spaces: nothing was changed.</source>
            <translation>モデル ID に空白は含まれません。何も変更されていません。</translation>
        </message>
    </context>
    <context>
        <name>ModelWords</name>
        <message>
            <source>Favourites</source>
            <translation>お気に入り</translation>
        </message>
        <message>
            <source>Recent</source>
            <translation>最近</translation>
        </message>
        <message>
            <source>makes images</source>
            <translation>画像生成</translation>
        </message>
        <message>
            <source>tools</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>images</source>
            <translation>画像</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>推論</translation>
        </message>
    </context>
    <context>
        <name>PageCount</name>
        <message numerus="yes">
            <source>%n slide(s)</source>
            <translation>
                <numerusform>%n 枚のスライド</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sheet(s)</source>
            <translation>
                <numerusform>%n シート</numerusform>
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
                <numerusform>%n ページ</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PasteDialog</name>
        <message>
            <source>Paste MCP servers</source>
            <translation>MCP サーバーを貼り付け</translation>
        </message>
        <message>
            <source>Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</source>
            <translation>Claude Desktop 形式の設定を貼り付けてください。例: {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}</translation>
        </message>
        <message>
            <source>MCP configuration JSON</source>
            <translation>MCP 設定の JSON</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>インポート</translation>
        </message>
    </context>
    <context>
        <name>PricesDialog</name>
        <message>
            <source>Model id</source>
            <translation>モデル ID</translation>
        </message>
        <message>
            <source>Input $/M</source>
            <translation>入力 $/M</translation>
        </message>
        <message>
            <source>Output $/M</source>
            <translation>出力 $/M</translation>
        </message>
        <message>
            <source>Cached input $/M</source>
            <translation>キャッシュ入力 $/M</translation>
        </message>
        <message>
            <source>Model prices</source>
            <translation>モデル料金</translation>
        </message>
        <message>
            <source>Costs use the provider's own figure when it reports one, then these prices, then a built-in table of common models. Prices are US dollars per million tokens; the model id must match exactly.</source>
            <translation>費用はプロバイダーが報告する値があればそれを使い、なければここの料金、それもなければ主要モデルの組み込み料金表を使います。料金は 100 万トークンあたりの米ドルで、モデル ID は完全一致が必要です。</translation>
        </message>
        <message>
            <source>Add row</source>
            <translation>行を追加</translation>
        </message>
        <message>
            <source>Remove row</source>
            <translation>行を削除</translation>
        </message>
        <message>
            <source>Row {row}: enter a model id.</source>
            <translation>{row} 行目: モデル ID を入力してください。</translation>
        </message>
        <message>
            <source>Row {row}: prices must be numbers.</source>
            <translation>{row} 行目: 料金は数値で入力してください。</translation>
        </message>
        <message>
            <source>Row {row}: enter input and output prices.</source>
            <translation>{row} 行目: 入力と出力の料金を入力してください。</translation>
        </message>
        <message>
            <source>Row {row}: prices cannot be negative.</source>
            <translation>{row} 行目: 料金に負の値は使えません。</translation>
        </message>
    </context>
    <context>
        <name>ProjectActions</name>
        <message>
            <source>New chat in the project “{name}”: its instructions and files are part of every answer.</source>
            <translation>プロジェクト「{name}」の新しいチャット：その指示とファイルがすべての回答に使われます。</translation>
        </message>
        <message>
            <source>New chat in the project {name}</source>
            <translation>プロジェクト {name} の新しいチャット</translation>
        </message>
        <message>
            <source>Delete the project “{name}”?</source>
            <translation>プロジェクト「{name}」を削除しますか？</translation>
        </message>
        <message numerus="yes">
            <source>Its %n chats are kept and move out of the project. Its instructions and the text of its files are deleted.</source>
            <translation>
                <numerusform>%n 件のチャットは残り、プロジェクトから外れます。プロジェクトの指示とファイルのテキストは削除されます。</numerusform>
            </translation>
        </message>
        <message>
            <source>Delete project</source>
            <translation>プロジェクトを削除</translation>
        </message>
        <message numerus="yes">
            <source>Deleted the project {name}; its %n chats are in the list.</source>
            <translation>
                <numerusform>プロジェクト {name} を削除しました。%n 件のチャットは一覧に残っています。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ProjectPage</name>
        <message>
            <source>e.g. Thesis, Garden, Client X</source>
            <translation>例：論文、庭、顧客 X</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名前</translation>
        </message>
        <message>
            <source>What every chat in this project should know or do. Added after the assistant's prompt.</source>
            <translation>このプロジェクトのすべてのチャットが知っておくべきこと、行うべきこと。アシスタントのプロンプトの後に追加されます。</translation>
        </message>
        <message>
            <source>Instructions</source>
            <translation>指示</translation>
        </message>
        <message>
            <source>The provider's default</source>
            <translation>プロバイダーの既定</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>既定のモデル</translation>
        </message>
        <message>
            <source>None</source>
            <translation>なし</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>選択…</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>ワークスペースフォルダー</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>ナレッジベース</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>ファイル</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>チャット</translation>
        </message>
        <message>
            <source>Only these tools</source>
            <translation>これらのツールのみ</translation>
        </message>
        <message>
            <source>Only these tools (otherwise the app's tool settings)</source>
            <translation>これらのツールのみ（そうでなければアプリのツール設定）</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>有効なツール</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>Every chat in the project has these: small text files whole, larger ones searched.</source>
            <translation>プロジェクトのすべてのチャットで使えます：小さなテキストファイルは全文、大きなものは検索されます。</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>ファイルを追加…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>New chat in this project</source>
            <translation>このプロジェクトで新しいチャット</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>プロジェクトを削除…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>閉じる</translation>
        </message>
        <message>
            <source>Project: {name}</source>
            <translation>プロジェクト：{name}</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>新しいプロジェクト</translation>
        </message>
        <message>
            <source>No knowledge bases yet.</source>
            <translation>ナレッジベースはまだありません。</translation>
        </message>
        <message>
            <source>in every chat</source>
            <translation>すべてのチャットで</translation>
        </message>
        <message>
            <source>searched when needed</source>
            <translation>必要なときに検索</translation>
        </message>
        <message>
            <source>No chats yet. Start one, or drag a chat onto the project in the list.</source>
            <translation>チャットはまだありません。新しく始めるか、一覧のチャットをプロジェクトにドラッグしてください。</translation>
        </message>
        <message>
            <source>Adding…</source>
            <translation>追加中…</translation>
        </message>
        <message>
            <source>Add files to the project</source>
            <translation>プロジェクトにファイルを追加</translation>
        </message>
    </context>
    <context>
        <name>ProjectSection</name>
        <message>
            <source>Projects</source>
            <translation>プロジェクト</translation>
        </message>
        <message>
            <source>New project</source>
            <translation>新しいプロジェクト</translation>
        </message>
        <message>
            <source>Drag a chat here to move it into a project</source>
            <translation>チャットをここにドラッグするとプロジェクトに移動します</translation>
        </message>
        <message>
            <source>Group chats with shared instructions and files.</source>
            <translation>共通の指示とファイルでチャットをまとめます。</translation>
        </message>
        <message numerus="yes">
            <source>%n chats</source>
            <translation>
                <numerusform>%n 件のチャット</numerusform>
            </translation>
        </message>
        <message>
            <source>Open project</source>
            <translation>プロジェクトを開く</translation>
        </message>
        <message>
            <source>New chat in project</source>
            <translation>プロジェクトで新しいチャット</translation>
        </message>
        <message>
            <source>Delete project…</source>
            <translation>プロジェクトを削除…</translation>
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
            <translation>送信</translation>
        </message>
        <message>
            <source>Fill in: {0}</source>
            <translation>入力: {0}</translation>
        </message>
    </context>
    <context>
        <name>ProviderDialog</name>
        <message>
            <source>Providers</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>Add to my providers</source>
            <translation>自分のプロバイダーに追加</translation>
        </message>
        <message>
            <source>Add detected provider to my providers</source>
            <translation>検出したプロバイダーを自分のプロバイダーに追加</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>閉じる</translation>
        </message>
        <message>
            <source>New provider</source>
            <translation>新しいプロバイダー</translation>
        </message>
        <message>
            <source>Discard your changes to “{name}”?</source>
            <translation>「{name}」への変更を破棄しますか?</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>保存していない変更</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>保存しました。</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its saved API key is deleted too.</source>
            <translation>「{name}」を削除しますか? 保存された API キーも削除されます。</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>プロバイダーを削除</translation>
        </message>
        <message>
            <source>Added to your providers.</source>
            <translation>プロバイダーに追加しました。</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Header line {number} should look like “Name: value”</source>
            <translation>ヘッダーの {number} 行目は「Name: value」の形式にしてください</translation>
        </message>
        <message>
            <source>Provider name</source>
            <translation>プロバイダー名</translation>
        </message>
        <message>
            <source>A name you will recognize</source>
            <translation>自分でわかる名前</translation>
        </message>
        <message>
            <source>&amp;Name</source>
            <translation>名前(&amp;N)</translation>
        </message>
        <message>
            <source>Preset</source>
            <translation>プリセット</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>ベース URL</translation>
        </message>
        <message>
            <source>https://example.com/v1</source>
            <translation>https://example.com/v1</translation>
        </message>
        <message>
            <source>Base &amp;URL</source>
            <translation>ベース URL(&amp;U)</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API キー</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>表示</translation>
        </message>
        <message>
            <source>Show API key</source>
            <translation>API キーを表示</translation>
        </message>
        <message>
            <source>Get a key</source>
            <translation>キーを取得</translation>
        </message>
        <message>
            <source>API &amp;key</source>
            <translation>API キー(&amp;K)</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>モデルを取得</translation>
        </message>
        <message>
            <source>Ask the provider which models it offers</source>
            <translation>プロバイダーに提供モデルを問い合わせる</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>モデル(&amp;M)</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>追加ヘッダー</translation>
        </message>
        <message>
            <source>Optional, one per line — Name: value</source>
            <translation>任意、1 行に 1 つ — Name: value</translation>
        </message>
        <message>
            <source>Extra &amp;headers</source>
            <translation>追加ヘッダー(&amp;H)</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>接続をテスト</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>接続状態</translation>
        </message>
        <message>
            <source>an environment variable</source>
            <translation>環境変数</translation>
        </message>
        <message>
            <source>Read from {variable} (never stored by Assista)</source>
            <translation>{variable} から読み取ります(Assista には保存されません)</translation>
        </message>
        <message>
            <source>Not needed for {name} (optional)</source>
            <translation>{name} では不要(任意)</translation>
        </message>
        <message>
            <source>Paste your API key</source>
            <translation>API キーを貼り付けてください</translation>
        </message>
        <message>
            <source>Enter a name.</source>
            <translation>名前を入力してください。</translation>
        </message>
        <message>
            <source>Enter the base URL (for example https://api.openai.com/v1).</source>
            <translation>ベース URL を入力してください(例: https://api.openai.com/v1)。</translation>
        </message>
        <message>
            <source>The base URL must start with http:// or https:// and name a server.</source>
            <translation>ベース URL は http:// または https:// で始まり、サーバーを含む必要があります。</translation>
        </message>
        <message>
            <source>Put the key in the API key field, not in the {name} header.</source>
            <translation>キーはヘッダー {name} ではなく API キー欄に入力してください。</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>処理中…</translation>
        </message>
        <message>
            <source>✗ Internal error: no asyncio event loop is running.</source>
            <translation>✗ 内部エラー: asyncio のイベントループが動いていません。</translation>
        </message>
        <message>
            <source>Testing connection…</source>
            <translation>接続をテストしています…</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>モデルを取得しています…</translation>
        </message>
        <message>
            <source>Unexpected error: {error}</source>
            <translation>予期しないエラー: {error}</translation>
        </message>
        <message numerus="yes">
            <source>✓ Connected — %n models</source>
            <translation>
                <numerusform>✓ 接続しました — モデル %n 個</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>✓ %n models found</source>
            <translation>
                <numerusform>✓ %n 個のモデルが見つかりました</numerusform>
            </translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>隠す</translation>
        </message>
        <message>
            <source>Hide API key</source>
            <translation>API キーを隠す</translation>
        </message>
    </context>
    <context>
        <name>ProviderList</name>
        <message>
            <source>Providers</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>Add provider</source>
            <translation>プロバイダーを追加</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Remove provider</source>
            <translation>プロバイダーを削除</translation>
        </message>
        <message>
            <source>No base URL yet</source>
            <translation>ベース URL はまだありません</translation>
        </message>
    </context>
    <context>
        <name>ProviderOptionsBox</name>
        <message>
            <source>Tools</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>Tools capability</source>
            <translation>ツールへの対応</translation>
        </message>
        <message>
            <source>Images</source>
            <translation>画像</translation>
        </message>
        <message>
            <source>Images capability</source>
            <translation>画像への対応</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推論</translation>
        </message>
        <message>
            <source>Reasoning capability</source>
            <translation>推論への対応</translation>
        </message>
        <message>
            <source>minimal</source>
            <translation>最小</translation>
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
            <translation>モデルの動作</translation>
        </message>
        <message>
            <source>Ask the model to think before answering</source>
            <translation>回答前にモデルに考えさせる</translation>
        </message>
        <message>
            <source>Extended thinking</source>
            <translation>拡張思考</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> トークン</translation>
        </message>
        <message>
            <source>Thinking budget</source>
            <translation>思考の予算</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推論の度合い</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>思考</translation>
        </message>
        <message>
            <source>Chain responses on the server (previous_response_id)</source>
            <translation>サーバー側で応答をつなぐ (previous_response_id)</translation>
        </message>
        <message>
            <source>Stateless replay (store: false)</source>
            <translation>状態を持たない再送 (store: false)</translation>
        </message>
        <message>
            <source>Responses API mode</source>
            <translation>Responses API のモード</translation>
        </message>
        <message>
            <source>Conversation state</source>
            <translation>会話の状態</translation>
        </message>
        <message>
            <source>Checked: the model can · Unchecked: it cannot · Partly checked: decide from the model name</source>
            <translation>オン: 対応 · オフ: 非対応 · 中間: モデル名から判断</translation>
        </message>
        <message>
            <source>Capabilities</source>
            <translation>機能</translation>
        </message>
    </context>
    <context>
        <name>ProviderText</name>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>カスタム(OpenAI 互換)</translation>
        </message>
        <message>
            <source>{name} — not saved</source>
            <translation>{name} — 未保存</translation>
        </message>
        <message>
            <source>{name} — from environment ({variable})</source>
            <translation>{name} — 環境変数から({variable})</translation>
        </message>
        <message>
            <source>no key</source>
            <translation>キーなし</translation>
        </message>
        <message>
            <source>{name} — detected</source>
            <translation>{name} — 検出</translation>
        </message>
        <message>
            <source>From the environment ({variable}). Read-only here: its key stays in the environment and is never copied into Assista.</source>
            <translation>環境変数から({variable})。ここでは読み取り専用です。キーは環境変数に残り、Assista にはコピーされません。</translation>
        </message>
        <message>
            <source>{name} is running on this computer. Add it to edit it.</source>
            <translation>{name} がこのコンピューターで動作しています。編集するには追加してください。</translation>
        </message>
        <message>
            <source>The key is read from {variable} each time Assista starts.</source>
            <translation>キーは Assista の起動のたびに {variable} から読み取られます。</translation>
        </message>
        <message>
            <source>No system keyring found: keys are stored in a file readable only by you ({file})</source>
            <translation>システムのキーリングが見つかりません。キーはあなただけが読めるファイルに保存されます({file})</translation>
        </message>
        <message>
            <source>Keys are stored in the system keyring ({keyring})</source>
            <translation>キーはシステムのキーリングに保存されます({keyring})</translation>
        </message>
    </context>
    <context>
        <name>QuickAsk</name>
        <message>
            <source>&amp;Quick ask…</source>
            <extracomment>an answer in the quick window finished: chat title, answer, failed, the quick window started alone (``assista quick``), put away, and the main window is hidden too</extracomment>
            <translation>クイック質問(&amp;Q)…</translation>
        </message>
    </context>
    <context>
        <name>QuickAskWindow</name>
        <message>
            <source>Quick ask</source>
            <translation>クイック質問</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>質問</translation>
        </message>
        <message>
            <source>Enter sends, Shift+Enter adds a line, Escape closes the window</source>
            <translation>Enter で送信、Shift+Enter で改行、Esc でウィンドウを閉じます</translation>
        </message>
        <message>
            <source>Ask anything… (Enter sends)</source>
            <translation>何でも聞いてください… (Enter で送信)</translation>
        </message>
        <message>
            <source>Insert &amp;selection</source>
            <translation>選択範囲を挿入(&amp;S)</translation>
        </message>
        <message>
            <source>Insert the text selected in another application (or the clipboard)</source>
            <translation>ほかのアプリで選択中のテキスト(またはクリップボード)を挿入</translation>
        </message>
        <message>
            <source>&amp;Open in the main window</source>
            <translation>メインウィンドウで開く(&amp;O)</translation>
        </message>
        <message>
            <source>Continue this chat in the main window</source>
            <translation>このチャットをメインウィンドウで続ける</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>送信</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状態</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
        <message>
            <source>Add a provider in the main window first (Settings → Providers).</source>
            <translation>先にメインウィンドウでプロバイダーを追加してください(設定 → プロバイダー)。</translation>
        </message>
        <message>
            <source>{tool} waits for your approval: open this chat in the main window to answer.</source>
            <translation>{tool} があなたの承認を待っています。応答するにはこのチャットをメインウィンドウで開いてください。</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Nothing is selected and the clipboard is empty.</source>
            <translation>何も選択されておらず、クリップボードも空です。</translation>
        </message>
    </context>
    <context>
        <name>QuitGuard</name>
        <message>
            <source>Quit while answering?</source>
            <translation>回答中に終了しますか?</translation>
        </message>
        <message numerus="yes">
            <source>%n chats are still answering. Quit anyway? What they have written so far is kept, marked as stopped.</source>
            <translation>
                <numerusform>%n 件のチャットがまだ回答中です。それでも終了しますか? ここまでの内容は「停止」として残ります。</numerusform>
            </translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>終了</translation>
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
            <translation>読み上げを停止</translation>
        </message>
        <message>
            <source>Preparing to read aloud…</source>
            <translation>読み上げの準備中…</translation>
        </message>
        <message>
            <source>Reading aloud</source>
            <translation>読み上げ中</translation>
        </message>
        <message>
            <source>Reading aloud (paused)</source>
            <translation>読み上げ中（一時停止）</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>再開</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>一時停止</translation>
        </message>
        <message>
            <source>Go on reading</source>
            <translation>読み上げを続ける</translation>
        </message>
        <message>
            <source>Pause reading</source>
            <translation>読み上げを一時停止</translation>
        </message>
    </context>
    <context>
        <name>ReplayView</name>
        <message>
            <source>First token %1 · total %2 · %3 tokens · %4 tok/s</source>
            <translation>最初のトークン %1 · 合計 %2 · %3 トークン · %4 トークン/秒</translation>
        </message>
        <message>
            <source>Provider to send to</source>
            <translation>送信先のプロバイダー</translation>
        </message>
        <message>
            <source>Model to send to</source>
            <translation>送信先のモデル</translation>
        </message>
        <message>
            <source>Replay</source>
            <translation>再生</translation>
        </message>
        <message>
            <source>Send the same request again (nothing is added to the chat)</source>
            <translation>同じリクエストをもう一度送信します(チャットには何も追加されません)</translation>
        </message>
        <message>
            <source>Not replayed yet</source>
            <translation>まだ再送していません</translation>
        </message>
        <message>
            <source>Send to:</source>
            <translation>送信先:</translation>
        </message>
        <message>
            <source>No provider is configured.</source>
            <translation>プロバイダーが設定されていません。</translation>
        </message>
        <message>
            <source>Sending the request again…</source>
            <translation>リクエストを再送しています…</translation>
        </message>
        <message>
            <source>Replay failed.</source>
            <translation>再送に失敗しました。</translation>
        </message>
        <message>
            <source>Replayed.</source>
            <translation>再送しました。</translation>
        </message>
    </context>
    <context>
        <name>RequestInspector</name>
        <message>
            <source>There is no answer in this chat to inspect yet.</source>
            <translation>このチャットにはまだ検査できる回答がありません。</translation>
        </message>
        <message>
            <source>The recorded requests cannot be read: %1</source>
            <translation>記録したリクエストを読み取れません: %1</translation>
        </message>
        <message>
            <source>No request was recorded for this answer. Recording may be off in Settings, or the record is older than the retention period.</source>
            <translation>この回答のリクエストは記録されていません。設定で記録がオフになっているか、保存期間を過ぎている可能性があります。</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>リクエストインスペクター</translation>
        </message>
    </context>
    <context>
        <name>ResearchPanel</name>
        <message>
            <source>Research progress</source>
            <translation>リサーチの進捗</translation>
        </message>
        <message>
            <source>Research status</source>
            <translation>リサーチの状態</translation>
        </message>
        <message>
            <source>Hide the research progress</source>
            <translation>リサーチの進捗を隠す</translation>
        </message>
        <message>
            <source>Research time, tokens and cost</source>
            <translation>リサーチの時間・トークン・費用</translation>
        </message>
        <message>
            <source>Plan:</source>
            <translation>計画：</translation>
        </message>
        <message numerus="yes">
            <source>Searches (%n):</source>
            <translation>
                <numerusform>検索（%n）：</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Sources read (%n):</source>
            <translation>
                <numerusform>読んだ出典（%n）：</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n page(s) could not be read.</source>
            <translation>
                <numerusform>%n ページを読めませんでした。</numerusform>
            </translation>
        </message>
        <message>
            <source>Research: making a plan…</source>
            <translation>リサーチ：計画を立てています…</translation>
        </message>
        <message>
            <source>Research: searching…</source>
            <translation>リサーチ：検索しています…</translation>
        </message>
        <message>
            <source>Research: reading pages…</source>
            <translation>リサーチ：ページを読んでいます…</translation>
        </message>
        <message>
            <source>Research: writing the report…</source>
            <translation>リサーチ：レポートを書いています…</translation>
        </message>
        <message>
            <source>Research finished</source>
            <translation>リサーチ完了</translation>
        </message>
        <message>
            <source>(round {round} of {rounds})</source>
            <translation>（{rounds} ラウンド中 {round}）</translation>
        </message>
        <message>
            <source>{elapsed} of {limit}</source>
            <translation>{elapsed} / {limit}</translation>
        </message>
        <message numerus="yes">
            <source>%n token(s)</source>
            <translation>
                <numerusform>%n トークン</numerusform>
            </translation>
        </message>
        <message>
            <source>cost unknown</source>
            <translation>費用不明</translation>
        </message>
        <message>
            <source>{cost} of {ceiling}</source>
            <translation>{cost} / {ceiling}</translation>
        </message>
        <message numerus="yes">
            <source>Stopped at the limit of %n search round(s).</source>
            <translation>
                <numerusform>検索 %n ラウンドの上限で停止しました。</numerusform>
            </translation>
        </message>
        <message>
            <source>Stopped at the time limit ({limit}).</source>
            <translation>時間の上限（{limit}）で停止しました。</translation>
        </message>
        <message>
            <source>Stopped at the cost ceiling ({ceiling}); the report is made of what was found.</source>
            <translation>費用の上限（{ceiling}）で停止しました。レポートは見つかった内容でできています。</translation>
        </message>
        <message>
            <source>Stopped; the report holds what was found so far.</source>
            <translation>停止しました。レポートにはここまでに見つかった内容があります。</translation>
        </message>
        <message>
            <source>The research failed; what was found is kept in the report.</source>
            <translation>リサーチに失敗しました。見つかった内容はレポートに残っています。</translation>
        </message>
    </context>
    <context>
        <name>ResponsivePanels</name>
        <message>
            <source>Show the chat list (Ctrl+Shift+L)</source>
            <translation>チャット一覧を表示 (Ctrl+Shift+L)</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>チャット一覧</translation>
        </message>
    </context>
    <context>
        <name>ResultColumn</name>
        <message>
            <source>Error: %1</source>
            <translation>エラー: %1</translation>
        </message>
        <message>
            <source>Answer of %1</source>
            <translation>%1 の回答</translation>
        </message>
    </context>
    <context>
        <name>RetrievalText</name>
        <message>
            <source>Query</source>
            <translation>検索語</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>見つかりませんでした。</translation>
        </message>
    </context>
    <context>
        <name>SaveBanner</name>
        <message>
            <source>Retry</source>
            <translation>再試行</translation>
        </message>
        <message>
            <source>Try to store the answer again</source>
            <translation>回答の保存をもう一度試す</translation>
        </message>
        <message>
            <source>Retry saving the answer</source>
            <translation>回答の保存を再試行</translation>
        </message>
        <message>
            <source>The answer could not be saved: {error}. It is kept here until it is stored.</source>
            <translation>回答を保存できませんでした: {error}。保存されるまでここに残ります。</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>保存しています…</translation>
        </message>
        <message>
            <source>Still not saved: {error}. The answer is kept here; try again.</source>
            <translation>まだ保存できていません: {error}。回答はここに残っています。もう一度お試しください。</translation>
        </message>
    </context>
    <context>
        <name>ScopeRow</name>
        <message>
            <source>Always allow for paths matching</source>
            <translation>次に一致するパスで常に許可</translation>
        </message>
        <message>
            <source>Always allow for the command</source>
            <translation>次のコマンドで常に許可</translation>
        </message>
        <message>
            <source>Always allow needs a scope: type one, or allow once.</source>
            <translation>「常に許可」には範囲が必要です。範囲を入力するか、1 回だけ許可してください。</translation>
        </message>
        <message>
            <source>The pattern must stay inside the workspace (a relative path).</source>
            <translation>パターンはワークスペース内にとどまる必要があります（相対パス）。</translation>
        </message>
        <message>
            <source>Files in a .git folder are never allowed without asking.</source>
            <translation>.git フォルダー内のファイルは、確認なしに許可されることはありません。</translation>
        </message>
        <message>
            <source>A command with shell syntax ($ ` ; | &amp; &gt; &lt; \, a line break, or * ? ~ ( ) outside quotes) cannot be always allowed.</source>
            <translation>シェル構文（$ ` ; | &amp; &gt; &lt; \、改行、または引用符の外の * ? ~ ( )）を含むコマンドは常に許可できません。</translation>
        </message>
        <message>
            <source>A host is a name such as api.example.com or *.example.com.</source>
            <translation>ホストは api.example.com や *.example.com のような名前です。</translation>
        </message>
        <message>
            <source>This call cannot be always allowed.</source>
            <translation>この呼び出しは常に許可できません。</translation>
        </message>
        <message>
            <source>Writes to paths matching {scope} (never inside .git) run without asking, in every chat.</source>
            <translation>{scope} に一致するパスへの書き込み（.git 内は除く）は、すべてのチャットで確認なしに実行されます。</translation>
        </message>
        <message>
            <source>Fetches from {scope} run without asking, in every chat.</source>
            <translation>{scope} からの取得は、すべてのチャットで確認なしに実行されます。</translation>
        </message>
        <message>
            <source>“{scope}” runs without asking, in every chat, with its read-only options and arguments inside the workspace; anything else asks again.</source>
            <translation>「{scope}」は、読み取り専用のオプションとワークスペース内の引数であれば、すべてのチャットで確認なしに実行されます。それ以外は再度確認します。</translation>
        </message>
        <message>
            <source>Exactly the command “{scope}” runs without asking, in every chat; any other asks again.</source>
            <translation>コマンド「{scope}」そのものだけが、すべてのチャットで確認なしに実行されます。その他は再度確認します。</translation>
        </message>
        <message>
            <source>What “Always allow” grants: calls inside it will run without asking, in every chat; others still ask. Revoke it in Settings → Tools.</source>
            <translation>「常に許可」で許可される範囲：この範囲内の呼び出しは、すべてのチャットで確認なしに実行されます。その他は引き続き確認します。設定 → ツールで取り消せます。</translation>
        </message>
        <message>
            <source>Always allow for the host</source>
            <translation>次のホストで常に許可</translation>
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
            <translation>チャットを検索</translation>
        </message>
        <message>
            <source>Search every chat — words, "exact phrases", any language</source>
            <translation>すべてのチャットを検索 — 単語、"完全一致のフレーズ"、どの言語でも</translation>
        </message>
        <message>
            <source>Search results</source>
            <translation>検索結果</translation>
        </message>
        <message>
            <source>No matches.</source>
            <translation>一致するものはありません。</translation>
        </message>
        <message numerus="yes">
            <source>%n matches (the most recent shown) · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n 件一致(新しいものを表示) · Enter で開く · ↑↓ で移動 · Esc で閉じる</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches · Enter opens · ↑↓ move · Esc closes</source>
            <translation>
                <numerusform>%n 件一致 · Enter で開く · ↑↓ で移動 · Esc で閉じる</numerusform>
            </translation>
        </message>
        <message>
            <source>Type to search every chat, every branch, tool calls and titles.</source>
            <translation>入力すると、すべてのチャット、すべての分岐、ツール呼び出し、タイトルを検索します。</translation>
        </message>
    </context>
    <context>
        <name>SectionDelegate</name>
        <message numerus="yes">
            <source>%n messages</source>
            <translation>
                <numerusform>メッセージ %n 件</numerusform>
            </translation>
        </message>
        <message>
            <source>Now: {state}</source>
            <translation>現在: {state}</translation>
        </message>
    </context>
    <context>
        <name>Segment</name>
        <message>
            <source>Copy</source>
            <translation>コピー</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>保存…</translation>
        </message>
        <message>
            <source>Picture</source>
            <translation>画像</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>ソース</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>プレビュー</translation>
        </message>
        <message>
            <source>Open in your browser: this runs the model's code, with every network request blocked</source>
            <translation>ブラウザーで開く：モデルのコードを実行し、すべてのネットワーク要求はブロックされます</translation>
        </message>
        <message>
            <source>Show the code, or the drawing</source>
            <translation>コードまたは図を表示</translation>
        </message>
        <message>
            <source>Save this as a file</source>
            <translation>ファイルとして保存</translation>
        </message>
        <message>
            <source>The preview runs the model's code in your web browser. Every network request from it is blocked, so it cannot send anything anywhere or load anything. Open it?</source>
            <translation>プレビューはモデルのコードをウェブブラウザーで実行します。そこからのネットワーク要求はすべてブロックされるため、どこにも何も送信できず、何も読み込めません。開きますか？</translation>
        </message>
        <message>
            <source>This build has no mermaid.js, so diagrams cannot be previewed.</source>
            <translation>このビルドには mermaid.js がないため、図をプレビューできません。</translation>
        </message>
        <message>
            <source>Could not write the preview: {error}</source>
            <translation>プレビューを書き込めませんでした：{error}</translation>
        </message>
        <message>
            <source>Save as</source>
            <translation>名前を付けて保存</translation>
        </message>
        <message>
            <source>{kind} files (*{suffix});;All files (*)</source>
            <translation>{kind} ファイル (*{suffix});;すべてのファイル (*)</translation>
        </message>
        <message>
            <source>Could not save {path}: {error}</source>
            <translation>{path} を保存できませんでした：{error}</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>コピーしました</translation>
        </message>
    </context>
    <context>
        <name>ServerQuestionCard</name>
        <message>
            <source>MCP server {0} asks</source>
            <translation>MCP サーバー {0} からの質問</translation>
        </message>
        <message>
            <source>MCP server {0} wants the model to answer</source>
            <translation>MCP サーバー {0} がモデルの回答を求めています</translation>
        </message>
        <message>
            <source>In “{0}”</source>
            <translation>「{0}」内</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>開く</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>完了</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>送信</translation>
        </message>
        <message>
            <source>Decline</source>
            <translation>断る</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>キャンセル</translation>
        </message>
        <message>
            <source>The messages the server sends</source>
            <translation>サーバーが送るメッセージ</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>許可</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒否</translation>
        </message>
        <message>
            <source>At most {0} tokens.</source>
            <translation>最大 {0} トークン。</translation>
        </message>
        <message>
            <source>(an image, {0})</source>
            <translation>(画像、{0})</translation>
        </message>
    </context>
    <context>
        <name>SessionItems</name>
        <message>
            <source>waiting for the provider</source>
            <extracomment>What each state says to a screen reader and in the tooltip (see :func:`state_text`).</extracomment>
            <translation>プロバイダー待ち</translation>
        </message>
        <message>
            <source>answering</source>
            <translation>回答中</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>あなたの承認待ち</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失敗</translation>
        </message>
        <message>
            <source>new answer</source>
            <translation>新しい回答</translation>
        </message>
        <message>
            <source>Today</source>
            <extracomment>The drag of a chat (onto a project): its session id, as UTF-8.</extracomment>
            <translation>今日</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>昨日</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>過去 7 日間</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>それ以前</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>ピン留め</translation>
        </message>
        <message>
            <source>Last changed {time}</source>
            <translation>最終更新: {time}</translation>
        </message>
        <message>
            <source>Deleted {time}</source>
            <translation>削除: {time}</translation>
        </message>
    </context>
    <context>
        <name>SessionList</name>
        <message>
            <source>+  New chat</source>
            <extracomment>Chats added each time the list is scrolled to its end: with thousands of chats, listing them all took hundreds of milliseconds on every change (each sent message; tests/bench/bench_shipped_startup.py). Chats listed at first: more than a tall window's list shows. The window lists them when it is built and again when a question typed while it loaded is sent, both before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.</extracomment>
            <translation>+  新しいチャット</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>新しい会話を始める (Ctrl+N)</translation>
        </message>
        <message>
            <source>Search chats…   Ctrl+K</source>
            <translation>チャットを検索…   Ctrl+K</translation>
        </message>
        <message>
            <source>Find a chat by a word in it (Ctrl+K)</source>
            <translation>含まれる単語でチャットを探す (Ctrl+K)</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>チャット</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>ゴミ箱を空にする</translation>
        </message>
        <message>
            <source>Show chats</source>
            <translation>チャットを表示</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>アーカイブ</translation>
        </message>
        <message>
            <source>Show archived chats</source>
            <translation>アーカイブしたチャットを表示</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>ゴミ箱</translation>
        </message>
        <message>
            <source>Show the trash</source>
            <translation>ゴミ箱を表示</translation>
        </message>
        <message numerus="yes">
            <source>Chats here are erased after %n days.</source>
            <translation>
                <numerusform>ここのチャットは %n 日後に消去されます。</numerusform>
            </translation>
        </message>
        <message>
            <source>Chats here are erased when the app next starts.</source>
            <translation>ここのチャットは次回のアプリ起動時に消去されます。</translation>
        </message>
        <message>
            <source>Archived chats</source>
            <translation>アーカイブしたチャット</translation>
        </message>
        <message>
            <source>No chats yet.</source>
            <translation>チャットはまだありません。</translation>
        </message>
        <message>
            <source>Archived chats appear here.</source>
            <translation>アーカイブしたチャットはここに表示されます。</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>ゴミ箱は空です。</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>元に戻す</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>完全に削除…</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>開く</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>名前を変更</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>ピン留めを外す</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>ピン留め</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>複製</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>アーカイブから戻す</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>アーカイブ</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Move to project</source>
            <translation>プロジェクトへ移動</translation>
        </message>
        <message>
            <source>Remove from project</source>
            <translation>プロジェクトから外す</translation>
        </message>
        <message>
            <source>the chat</source>
            <translation>チャット</translation>
        </message>
        <message>
            <source>this chat</source>
            <translation>このチャット</translation>
        </message>
        <message>
            <source>Delete “{title}” forever? This cannot be undone.</source>
            <translation>「{title}」を完全に削除しますか? 元に戻せません。</translation>
        </message>
        <message>
            <source>Delete every chat in the trash forever? This cannot be undone.</source>
            <translation>ゴミ箱のチャットをすべて完全に削除しますか? 元に戻せません。</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>完全に削除</translation>
        </message>
    </context>
    <context>
        <name>SessionPromptDialog</name>
        <message>
            <source>System prompt of this chat</source>
            <translation>このチャットのシステムプロンプト</translation>
        </message>
        <message>
            <source>the assistant “{name}”</source>
            <translation>アシスタント「{name}」</translation>
        </message>
        <message>
            <source>the default system prompt (Settings → Preferences)</source>
            <translation>既定のシステムプロンプト(設定 → 環境設定)</translation>
        </message>
        <message>
            <source>The new chat</source>
            <translation>新しいチャット</translation>
        </message>
        <message>
            <source>Use this chat's own system prompt</source>
            <translation>このチャット専用のシステムプロンプトを使う</translation>
        </message>
        <message>
            <source>Otherwise the chat uses {origin}.</source>
            <translation>オフの場合、チャットは{origin}を使います。</translation>
        </message>
        <message>
            <source>Without it, this chat uses {origin}.</source>
            <translation>使わない場合、このチャットは{origin}を使います。</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>システムプロンプト</translation>
        </message>
        <message>
            <source>Full system prompt</source>
            <translation>システムプロンプト全体</translation>
        </message>
        <message>
            <source>What the model is sent (with your custom instructions, the workspace and the date):</source>
            <translation>モデルに送られる内容(カスタム指示、作業フォルダー、日付を含む):</translation>
        </message>
        <message>
            <source>(no system prompt)</source>
            <translation>(システムプロンプトなし)</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Follow the system</source>
            <translation>システムに従う</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>ライト</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>ダーク</translation>
        </message>
        <message>
            <source>High contrast</source>
            <translation>ハイコントラスト</translation>
        </message>
        <message>
            <source>Leave out the oldest turns</source>
            <translation>古いやり取りを省く</translation>
        </message>
        <message>
            <source>Replace the oldest turns with a summary</source>
            <translation>古いやり取りを要約に置き換える</translation>
        </message>
        <message>
            <source>e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080</source>
            <translation>例: http://proxy.example.com:8080 または socks5://127.0.0.1:1080</translation>
        </message>
        <message>
            <source>The proxy URL cannot contain spaces ({example}).</source>
            <translation>プロキシの URL に空白は使えません({example})。</translation>
        </message>
        <message>
            <source>The proxy must start with http://, https:// or socks5:// ({example}).</source>
            <translation>プロキシは http://、https://、socks5:// のいずれかで始めてください({example})。</translation>
        </message>
        <message>
            <source>The proxy URL needs a host name ({example}).</source>
            <translation>プロキシの URL にはホスト名が必要です({example})。</translation>
        </message>
        <message>
            <source>The proxy port must be a number from 1 to 65535.</source>
            <translation>プロキシのポートは 1〜65535 の数値にしてください。</translation>
        </message>
        <message>
            <source>The proxy URL is only scheme://host:port ({example}).</source>
            <translation>プロキシの URL は scheme://host:port の形だけです({example})。</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>環境設定</translation>
        </message>
        <message>
            <source>Preferences sections</source>
            <translation>設定のセクション</translation>
        </message>
        <message>
            <source>General</source>
            <translation>一般</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>チャット</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>メモリー</translation>
        </message>
        <message>
            <source>Network</source>
            <translation>ネットワーク</translation>
        </message>
        <message>
            <source>Desktop</source>
            <translation>デスクトップ</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>データ</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>ウェブ検索</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>スキル</translation>
        </message>
        <message>
            <source>Usage</source>
            <translation>使用量</translation>
        </message>
        <message>
            <source>Request inspector</source>
            <translation>リクエストインスペクター</translation>
        </message>
        <message>
            <source>Settings error</source>
            <translation>設定のエラー</translation>
        </message>
        <message>
            <source>The assistant new chats start with</source>
            <translation>新しいチャットで最初に使うアシスタント</translation>
        </message>
        <message>
            <source>Added to every chat: who you are, how you like answers…</source>
            <translation>すべてのチャットに追加: あなたについて、好みの回答スタイルなど…</translation>
        </message>
        <message>
            <source>Custom instructions</source>
            <translation>カスタム指示</translation>
        </message>
        <message>
            <source>Default system prompt</source>
            <translation>既定のシステムプロンプト</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>テーマ</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>言語</translation>
        </message>
        <message>
            <source>Base font size</source>
            <translation>基本フォントサイズ</translation>
        </message>
        <message>
            <source> pt</source>
            <translation> pt</translation>
        </message>
        <message>
            <source>Default</source>
            <translation>既定</translation>
        </message>
        <message>
            <source>New chats use</source>
            <translation>新しいチャットで使う</translation>
        </message>
        <message>
            <source>A chat's own prompt (Chat → Edit system prompt…) or its assistant's replaces the default; custom instructions are always added.</source>
            <translation>チャット専用のプロンプト(チャット → システムプロンプトを編集…)やアシスタントのプロンプトは既定のものを置き換えます。カスタム指示は常に追加されます。</translation>
        </message>
        <message>
            <source>What happens when a chat no longer fits the model's context window (you are told when it does)</source>
            <translation>チャットがモデルのコンテキストウィンドウに収まらなくなったときの動作(その際は通知されます)</translation>
        </message>
        <message>
            <source> days</source>
            <translation> 日</translation>
        </message>
        <message>
            <source>Erase at the next start</source>
            <translation>次回起動時に消去</translation>
        </message>
        <message>
            <source>Let the model title new chats</source>
            <translation>新しいチャットのタイトルをモデルに付けさせる</translation>
        </message>
        <message>
            <source>After a new chat's first answer, its model writes a short title (one small request). Off: the first line of your first message stays the title. A title you set is never replaced.</source>
            <translation>新しいチャットの最初の回答の後、モデルが短いタイトルを付けます(小さなリクエスト 1 回)。オフにすると最初のメッセージの 1 行目がタイトルになります。自分で付けたタイトルは置き換えられません。</translation>
        </message>
        <message>
            <source>When a chat is too long</source>
            <translation>チャットが長すぎるとき</translation>
        </message>
        <message>
            <source>Keep deleted chats in the trash</source>
            <translation>削除したチャットをゴミ箱に残す期間</translation>
        </message>
        <message>
            <source>Titles</source>
            <translation>タイトル</translation>
        </message>
        <message>
            <source>Titles written by</source>
            <translation>タイトルを書くモデル</translation>
        </message>
        <message>
            <source>Proxy URL</source>
            <translation>プロキシの URL</translation>
        </message>
        <message>
            <source>Empty: the system's settings. http://host:8080, socks5://host:1080</source>
            <translation>空欄: システムの設定。http://host:8080、socks5://host:1080</translation>
        </message>
        <message>
            <source>No proxy for</source>
            <translation>プロキシを使わない宛先</translation>
        </message>
        <message>
            <source>localhost,127.0.0.1,.internal.example</source>
            <translation>localhost,127.0.0.1,.internal.example</translation>
        </message>
        <message>
            <source>Request timeout</source>
            <translation>リクエストのタイムアウト</translation>
        </message>
        <message>
            <source> s</source>
            <translation> 秒</translation>
        </message>
        <message>
            <source>Proxy</source>
            <translation>プロキシ</translation>
        </message>
        <message>
            <source>Answers at once per provider</source>
            <translation>プロバイダーごとの同時回答数</translation>
        </message>
        <message>
            <source>More chats than this asking one provider at once wait their turn</source>
            <translation>これを超えて同じプロバイダーに同時に問い合わせるチャットは順番を待ちます</translation>
        </message>
        <message>
            <source>The proxy is used for every request the app makes: providers, model lists, fetch_url and MCP servers over HTTP. User and password may be part of the URL (http://user:pass@host:port).</source>
            <translation>プロキシはアプリのすべてのリクエストに使われます: プロバイダー、モデル一覧、fetch_url、HTTP 経由の MCP サーバー。ユーザー名とパスワードは URL に含められます(http://user:pass@host:port)。</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>フォルダーを開く</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>データフォルダー</translation>
        </message>
        <message>
            <source>Portable mode (--data-dir).</source>
            <translation>ポータブルモード(--data-dir)。</translation>
        </message>
        <message>
            <source>Start with --data-dir FOLDER to keep the data elsewhere.</source>
            <translation>データを別の場所に置くには --data-dir フォルダー を付けて起動してください。</translation>
        </message>
        <message>
            <source>Chats and settings are in {database} there; logs in {logs}/. {note} API keys are in the system keyring when there is one.</source>
            <translation>チャットと設定はそこの {database} に、ログは {logs}/ にあります。{note} API キーは、システムのキーリングがあればそこに保存されます。</translation>
        </message>
        <message>
            <source>No assistant</source>
            <translation>アシスタントなし</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Message box</source>
            <extracomment>Keys that belong to a widget, not to a menu action (so no QAction to read them from); the words are translated, the keys named, where the dialog shows them.</extracomment>
            <translation>メッセージ欄</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>送信</translation>
        </message>
        <message>
            <source>New line</source>
            <translation>改行</translation>
        </message>
        <message>
            <source>Stop the answer</source>
            <translation>回答を停止</translation>
        </message>
        <message>
            <source>Chat list</source>
            <translation>チャット一覧</translation>
        </message>
        <message>
            <source>Rename the chat</source>
            <translation>チャットの名前を変更</translation>
        </message>
        <message>
            <source>Move the chat to the trash</source>
            <translation>チャットをゴミ箱へ移動</translation>
        </message>
        <message>
            <source>Open the chat</source>
            <translation>チャットを開く</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>キーボードショートカット</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>場所</translation>
        </message>
        <message>
            <source>What</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>キー</translation>
        </message>
    </context>
    <context>
        <name>SkillSwitches</name>
        <message>
            <source>Skills</source>
            <translation>スキル</translation>
        </message>
        <message>
            <source>No skills (add some in Preferences → Skills)</source>
            <translation>スキルはありません（環境設定 → スキル で追加）</translation>
        </message>
    </context>
    <context>
        <name>SkillsPage</name>
        <message>
            <source>{path} does not exist.</source>
            <extracomment>The page's wording of the errors adding or removing a skill can carry.</extracomment>
            <translation>{path} は存在しません。</translation>
        </message>
        <message>
            <source>There is no SKILL.md in it.</source>
            <translation>SKILL.md が含まれていません。</translation>
        </message>
        <message>
            <source>The skill is not valid: {reason}</source>
            <translation>スキルが無効です：{reason}</translation>
        </message>
        <message>
            <source>The zip is refused: {reason}</source>
            <translation>zip は拒否されました：{reason}</translation>
        </message>
        <message>
            <source>The skill is larger than 50 MB.</source>
            <translation>スキルが 50 MB を超えています。</translation>
        </message>
        <message>
            <source>A skill named {name} is already added.</source>
            <translation>{name} という名前のスキルは既に追加されています。</translation>
        </message>
        <message>
            <source>There is no added skill named {name}.</source>
            <translation>{name} という名前の追加済みスキルはありません。</translation>
        </message>
        <message>
            <source>Skills are folders of instructions, scripts and resources the model loads when a task needs them. The model sees each skill's name and description; it reads the rest with the Load skill tool, and runs scripts with Run command (which asks first). A chat or assistant can turn skills off for itself.</source>
            <translation>スキルは、タスクに必要なときにモデルが読み込む指示・スクリプト・リソースのフォルダーです。モデルには各スキルの名前と説明が見え、残りは「スキルを読み込む」ツールで読み、スクリプトは「コマンドを実行」で実行します（実行前に確認します）。チャットやアシスタントごとにスキルをオフにできます。</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>スキル</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>スキル</translation>
        </message>
        <message>
            <source>From</source>
            <translation>場所</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>説明</translation>
        </message>
        <message>
            <source>No skills yet. Add a folder that holds a SKILL.md, or a zip of one.</source>
            <translation>スキルはまだありません。SKILL.md を含むフォルダー、またはその zip を追加してください。</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>フォルダーを追加…</translation>
        </message>
        <message>
            <source>Add zip…</source>
            <translation>zip を追加…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>削除</translation>
        </message>
        <message>
            <source>Open skills folder</source>
            <translation>スキルフォルダーを開く</translation>
        </message>
        <message>
            <source>On: offered to every chat</source>
            <translation>オン：すべてのチャットで使用可能</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>ワークスペース</translation>
        </message>
        <message>
            <source>App</source>
            <translation>アプリ</translation>
        </message>
        <message>
            <source>Cannot be used: {problem}</source>
            <translation>使用できません：{problem}</translation>
        </message>
        <message>
            <source>Add a skill folder</source>
            <translation>スキルフォルダーを追加</translation>
        </message>
        <message>
            <source>Add a skill from a zip</source>
            <translation>zip からスキルを追加</translation>
        </message>
        <message>
            <source>Zip archives (*.zip)</source>
            <translation>zip アーカイブ (*.zip)</translation>
        </message>
        <message>
            <source>The skill could not be copied: {reason}</source>
            <translation>スキルをコピーできませんでした：{reason}</translation>
        </message>
        <message>
            <source>Remove skill</source>
            <translation>スキルを削除</translation>
        </message>
        <message>
            <source>Remove the skill {name}? Its folder is deleted.</source>
            <translation>スキル {name} を削除しますか？フォルダーも削除されます。</translation>
        </message>
        <message>
            <source>The skill could not be removed: {reason}</source>
            <translation>スキルを削除できませんでした：{reason}</translation>
        </message>
    </context>
    <context>
        <name>SlashPrompts</name>
        <message>
            <source>Prompts from MCP servers</source>
            <translation>MCP サーバーのプロンプト</translation>
        </message>
        <message>
            <source>From MCP server {0}</source>
            <translation>MCP サーバー {0} から</translation>
        </message>
        <message>
            <source>The prompt /{0} failed: {1}</source>
            <translation>プロンプト /{0} に失敗しました: {1}</translation>
        </message>
    </context>
    <context>
        <name>SourcesView</name>
        <message>
            <source>page %1, line %2</source>
            <translation>%1 ページ %2 行目</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>%1 ページ</translation>
        </message>
        <message>
            <source>line %1</source>
            <translation>%1 行目</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>出典</translation>
        </message>
        <message>
            <source>Source %1: %2</source>
            <translation>出典 %1: %2</translation>
        </message>
    </context>
    <context>
        <name>Spinner</name>
        <message>
            <source>Running</source>
            <translation>実行中</translation>
        </message>
    </context>
    <context>
        <name>StarterCard</name>
        <message>
            <source>Add</source>
            <extracomment>Cards per row at the dialog's usual width (one column when it is narrow).</extracomment>
            <translation>追加</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>{name} を追加</translation>
        </message>
        <message>
            <source>Added</source>
            <translation>追加済み</translation>
        </message>
        <message>
            <source>Added as “{name}”; edit it in Assistants</source>
            <translation>「{name}」として追加しました。「アシスタント」で編集できます</translation>
        </message>
    </context>
    <context>
        <name>StartupSkeleton</name>
        <message>
            <source>Message</source>
            <extracomment>Enter was pressed: send it once the app can the box had the keyboard focus called at Enter once a question can be sent before the window is built</extracomment>
            <translation>メッセージ</translation>
        </message>
        <message>
            <source>Type a message… (it is sent once the app has loaded)</source>
            <translation>メッセージを入力… (アプリの読み込みが終わると送信されます)</translation>
        </message>
        <message>
            <source>Chats</source>
            <extracomment>clicked before the app had loaded listed by :meth:`fill` pressed in the window before :meth:`fill`</extracomment>
            <translation>チャット</translation>
        </message>
        <message>
            <source>+  New chat</source>
            <translation>+  新しいチャット</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>ツールの動作</translation>
        </message>
        <message>
            <source>Opening…</source>
            <translation>開いています…</translation>
        </message>
        <message>
            <source>Opening your chats…</source>
            <translation>チャットを開いています…</translation>
        </message>
    </context>
    <context>
        <name>SyncDialog</name>
        <message>
            <source>saved in the keyring — type to replace</source>
            <translation>キーリングに保存済み — 入力すると置き換えます</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>パスワード</translation>
        </message>
        <message>
            <source>Secret access key</source>
            <translation>シークレットアクセスキー</translation>
        </message>
        <message>
            <source>User name</source>
            <translation>ユーザー名</translation>
        </message>
        <message>
            <source>Access key ID</source>
            <translation>アクセスキー ID</translation>
        </message>
        <message>
            <source>Enter the password.</source>
            <translation>パスワードを入力してください。</translation>
        </message>
        <message>
            <source>Enter the user name.</source>
            <translation>ユーザー名を入力してください。</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>同期</translation>
        </message>
        <message>
            <source>Sync your chats, assistants and settings with your other computers through storage you own. Everything is encrypted here with your passphrase before it leaves; API keys never do.</source>
            <translation>チャット、アシスタント、設定を、自分が管理するストレージを通じてほかのコンピューターと同期します。送信前にすべてここでパスフレーズにより暗号化されます。API キーは送信されません。</translation>
        </message>
        <message>
            <source>Sync target</source>
            <translation>同期先</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>フォルダー…</translation>
        </message>
        <message>
            <source>Choose a folder another tool replicates (Syncthing, Dropbox, iCloud Drive, OneDrive)</source>
            <translation>ほかのツールが同期するフォルダーを選択(Syncthing、Dropbox、iCloud Drive、OneDrive)</translation>
        </message>
        <message>
            <source>AWS when empty; e.g. https://minio.example:9000</source>
            <translation>空欄なら AWS。例: https://minio.example:9000</translation>
        </message>
        <message>
            <source>us-east-1</source>
            <translation>us-east-1</translation>
        </message>
        <message>
            <source>the same passphrase again</source>
            <translation>同じパスフレーズをもう一度</translation>
        </message>
        <message>
            <source>the same on every computer; it cannot be recovered</source>
            <translation>すべてのコンピューターで同じもの。復元はできません</translation>
        </message>
        <message>
            <source>Sync automatically (after changes and every 5 minutes)</source>
            <translation>自動的に同期する(変更後と 5 分ごと)</translation>
        </message>
        <message>
            <source>Target</source>
            <translation>同期先</translation>
        </message>
        <message>
            <source>S3 endpoint</source>
            <translation>S3 エンドポイント</translation>
        </message>
        <message>
            <source>S3 region</source>
            <translation>S3 リージョン</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>パスフレーズ</translation>
        </message>
        <message>
            <source>Repeat</source>
            <translation>再入力</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>接続をテスト</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>今すぐ同期</translation>
        </message>
        <message>
            <source>{user} (from the URL)</source>
            <translation>{user}(URL から)</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>同期フォルダーを選択</translation>
        </message>
        <message>
            <source>Enter where to sync: {forms}.</source>
            <translation>同期先を入力してください: {forms}。</translation>
        </message>
        <message>
            <source>Unknown target: use {forms}.</source>
            <translation>不明な同期先です: {forms} を使ってください。</translation>
        </message>
        <message>
            <source>Enter the S3 access key ID.</source>
            <translation>S3 のアクセスキー ID を入力してください。</translation>
        </message>
        <message>
            <source>Enter the S3 secret access key.</source>
            <translation>S3 のシークレットアクセスキーを入力してください。</translation>
        </message>
        <message>
            <source>Choose a passphrase (the same on every computer).</source>
            <translation>パスフレーズを決めてください(すべてのコンピューターで同じもの)。</translation>
        </message>
        <message>
            <source>The two passphrases differ.</source>
            <translation>2 つのパスフレーズが一致しません。</translation>
        </message>
        <message>
            <source>Testing the connection…</source>
            <translation>接続をテストしています…</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>同期しています…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>同期に失敗しました: {error}</translation>
        </message>
        <message>
            <source>Status: {status}</source>
            <translation>状態: {status}</translation>
        </message>
    </context>
    <context>
        <name>SyncScheduler</name>
        <message>
            <source>just now</source>
            <translation>たった今</translation>
        </message>
        <message>
            <source>{minutes} min ago</source>
            <translation>{minutes} 分前</translation>
        </message>
        <message>
            <source>{hours} h ago</source>
            <translation>{hours} 時間前</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>同期しています…</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>同期に失敗しました: {error}</translation>
        </message>
        <message>
            <source>Not synced yet</source>
            <translation>まだ同期していません</translation>
        </message>
        <message>
            <source>Synced {when}</source>
            <translation>同期: {when}</translation>
        </message>
    </context>
    <context>
        <name>SyncStatusLabel</name>
        <message>
            <source>Sync: click for Settings → Sync</source>
            <translation>同期: クリックで 設定 → 同期 を開く</translation>
        </message>
    </context>
    <context>
        <name>SyncTexts</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>%n 日前</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes waiting</source>
            <translation>
                <numerusform>%n 件の変更が未同期</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TemporaryBanner</name>
        <message>
            <source>Temporary chat: it uses no memory and is not kept once you leave it.</source>
            <translation>一時チャット: メモリーを使わず、離れると保存されません。</translation>
        </message>
    </context>
    <context>
        <name>TitleModelCombo</name>
        <message>
            <source>Model that writes titles</source>
            <translation>タイトルを書くモデル</translation>
        </message>
        <message>
            <source>The chat's own model, or one model for every title (a small, quick one is enough)</source>
            <translation>チャット自身のモデル、またはすべてのタイトルに使う 1 つのモデル（小さく速いもので十分です）</translation>
        </message>
        <message>
            <source>The chat's model</source>
            <translation>チャットのモデル</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{provider} の {model}</translation>
        </message>
    </context>
    <context>
        <name>ToolActivity</name>
        <message>
            <source>{model} cannot use tools: none are sent to it</source>
            <translation>{model} はツールを使えないため、ツールは送信されません</translation>
        </message>
    </context>
    <context>
        <name>ToolCallCard</name>
        <message>
            <source>… starting</source>
            <translation>… 開始中</translation>
        </message>
        <message>
            <source>waiting for approval</source>
            <translation>承認待ち</translation>
        </message>
        <message>
            <source>running</source>
            <translation>実行中</translation>
        </message>
        <message>
            <source>✓ succeeded</source>
            <translation>✓ 成功</translation>
        </message>
        <message>
            <source>✗ failed</source>
            <translation>✗ 失敗</translation>
        </message>
        <message>
            <source>⊘ denied</source>
            <translation>⊘ 拒否</translation>
        </message>
        <message>
            <source>■ cancelled</source>
            <translation>■ キャンセル</translation>
        </message>
        <message>
            <source>Show details of {tool}</source>
            <translation>{tool} の詳細を表示</translation>
        </message>
        <message>
            <source>pending</source>
            <translation>保留中</translation>
        </message>
        <message>
            <source>Output of {tool}</source>
            <translation>{tool} の出力</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>キャンセル</translation>
        </message>
        <message>
            <source>Stop this call; the assistant is told it was cancelled</source>
            <translation>この呼び出しを停止します。キャンセルされたことはアシスタントに伝わります</translation>
        </message>
        <message>
            <source>Cancel {tool}</source>
            <translation>{tool} をキャンセル</translation>
        </message>
        <message>
            <source>Details of {tool}</source>
            <translation>{tool} の詳細</translation>
        </message>
        <message>
            <source>waiting {time} · review it above</source>
            <translation>{time} 待機中 · 上で確認してください</translation>
        </message>
        <message>
            <source>… [more output in the result]</source>
            <translation>… [続きの出力は結果にあります]</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>引数</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>プレビュー</translation>
        </message>
        <message>
            <source>Result · {status}</source>
            <translation>結果 · {status}</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>折りたたむ</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>すべて表示</translation>
        </message>
        <message>
            <source>Image returned by {tool}</source>
            <translation>{tool} が返した画像</translation>
        </message>
        <message>
            <source>[image: {type}] (cannot be shown)</source>
            <translation>[画像: {type}](表示できません)</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>キャンセルしています…</translation>
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
            <translation>終了コード {code}</translation>
        </message>
        <message>
            <source>Diff</source>
            <translation>差分</translation>
        </message>
    </context>
    <context>
        <name>ToolCallsInline</name>
        <message>
            <source>waiting for your approval</source>
            <translation>承認待ち</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>実行中…</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失敗</translation>
        </message>
        <message>
            <source>some failed</source>
            <translation>一部失敗</translation>
        </message>
        <message>
            <source>done</source>
            <translation>完了</translation>
        </message>
        <message>
            <source>running</source>
            <translation>実行中</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>折りたたむ</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>すべて表示</translation>
        </message>
        <message>
            <source>Show the tool calls of this answer</source>
            <translation>この回答のツール呼び出しを表示</translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>ツール呼び出し %n 件</numerusform>
            </translation>
        </message>
        <message>
            <source>Tool call details</source>
            <translation>ツール呼び出しの詳細</translation>
        </message>
        <message>
            <source>{count} more characters</source>
            <translation>残り {count} 文字</translation>
        </message>
    </context>
    <context>
        <name>ToolNames</name>
        <message>
            <source>Read file</source>
            <translation>ファイルを読む</translation>
        </message>
        <message>
            <source>List folder</source>
            <translation>フォルダーを一覧</translation>
        </message>
        <message>
            <source>Search files</source>
            <translation>ファイルを検索</translation>
        </message>
        <message>
            <source>Write file</source>
            <translation>ファイルを書き込む</translation>
        </message>
        <message>
            <source>Create file</source>
            <translation>ファイルを作成</translation>
        </message>
        <message>
            <source>Edit file</source>
            <translation>ファイルを編集</translation>
        </message>
        <message>
            <source>Run command</source>
            <translation>コマンドを実行</translation>
        </message>
        <message>
            <source>Fetch web page</source>
            <translation>Web ページを取得</translation>
        </message>
        <message>
            <source>Search the web</source>
            <translation>Web を検索</translation>
        </message>
        <message>
            <source>Search knowledge</source>
            <translation>ナレッジを検索</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>記憶する</translation>
        </message>
        <message>
            <source>Load skill</source>
            <translation>スキルを読み込む</translation>
        </message>
    </context>
    <context>
        <name>ToolSidebar</name>
        <message>
            <source>All calls</source>
            <translation>すべての呼び出し</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>待機中</translation>
        </message>
        <message>
            <source>No waiting calls.</source>
            <translation>待機中の呼び出しはありません。</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>実行中</translation>
        </message>
        <message>
            <source>No running calls.</source>
            <translation>実行中の呼び出しはありません。</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>No succeeded calls.</source>
            <translation>成功した呼び出しはありません。</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>失敗</translation>
        </message>
        <message>
            <source>No failed calls.</source>
            <translation>失敗した呼び出しはありません。</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>拒否しました</translation>
        </message>
        <message>
            <source>No denied calls.</source>
            <translation>拒否された呼び出しはありません。</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>キャンセル</translation>
        </message>
        <message>
            <source>No cancelled calls.</source>
            <translation>キャンセルされた呼び出しはありません。</translation>
        </message>
        <message>
            <source>{arrow} Turn {number} · {calls}</source>
            <translation>{arrow} ターン {number} · {calls}</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>ツールの動作</translation>
        </message>
        <message>
            <source>Show calls</source>
            <translation>表示する呼び出し</translation>
        </message>
        <message>
            <source>Show only calls with this status</source>
            <translation>この状態の呼び出しだけを表示</translation>
        </message>
        <message>
            <source>Tool calls the assistant makes appear here.</source>
            <translation>アシスタントのツール呼び出しがここに表示されます。</translation>
        </message>
        <message>
            <source>Turn {number}</source>
            <translation>ターン {number}</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>キャンセル</translation>
        </message>
        <message numerus="yes">
            <source>%n calls</source>
            <translation>
                <numerusform>%n 件の呼び出し</numerusform>
            </translation>
        </message>
        <message>
            <source>awaiting_approval</source>
            <translation>承認待ち</translation>
        </message>
    </context>
    <context>
        <name>ToolsDialog</name>
        <message>
            <source>&lt;b&gt;Allow&lt;/b&gt; runs a tool at once, &lt;b&gt;Ask&lt;/b&gt; shows you each call (with its diff, command or URL) before it runs, &lt;b&gt;Deny&lt;/b&gt; never runs it and the tool is not offered. Read-only tools default to Allow; writing files, running commands and fetching web pages default to Ask.</source>
            <translation>&lt;b&gt;許可&lt;/b&gt;はツールをすぐに実行し、&lt;b&gt;確認&lt;/b&gt;は実行前に各呼び出し(差分、コマンド、URL)を表示し、&lt;b&gt;拒否&lt;/b&gt;は実行せずツールも提示しません。読み取り専用のツールは既定で許可、ファイルの書き込み・コマンドの実行・ウェブページの取得は既定で確認です。</translation>
        </message>
        <message>
            <source>Allow</source>
            <extracomment>The policies as the combo boxes name them (translated where they are shown).</extracomment>
            <translation>許可</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>確認</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒否</translation>
        </message>
        <message>
            <source>built-in</source>
            <translation>組み込み</translation>
        </message>
        <message>
            <source>MCP: {server}</source>
            <translation>MCP: {server}</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>ツール</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>提供元</translation>
        </message>
        <message>
            <source>On</source>
            <translation>オン</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>ポリシー</translation>
        </message>
        <message>
            <source>Tools and their policies</source>
            <translation>ツールとそのポリシー</translation>
        </message>
        <message>
            <source>&lt;b&gt;Always allowed&lt;/b&gt; — these tools run without asking, in every chat, until you revoke them.</source>
            <translation>&lt;b&gt;常に許可&lt;/b&gt; — 取り消すまで、これらのツールはどのチャットでも確認なしで実行されます。</translation>
        </message>
        <message>
            <source>Calls</source>
            <translation>呼び出し</translation>
        </message>
        <message>
            <source>Since</source>
            <translation>許可日時</translation>
        </message>
        <message>
            <source>Always allowed tools</source>
            <translation>常に許可するツール</translation>
        </message>
        <message>
            <source>No tool is always allowed. Choose “Always allow” on an approval to add one.</source>
            <translation>常に許可しているツールはありません。承認時に「常に許可」を選ぶと追加されます。</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>取り消す</translation>
        </message>
        <message>
            <source>Ask again in this chat for these tools</source>
            <translation>このチャットでこれらのツールについてまた確認する</translation>
        </message>
        <message>
            <source>Offered to the assistant (each chat can still switch it off in the composer's tools menu)</source>
            <translation>アシスタントに提示します(各チャットで入力欄のツールメニューからオフにできます)</translation>
        </message>
        <message>
            <source>Switch MCP tools on or off in Settings → MCP servers</source>
            <translation>MCP ツールのオン/オフは 設定 → MCP サーバー で切り替えます</translation>
        </message>
        <message>
            <source>Policy for {tool}</source>
            <translation>{tool} のポリシー</translation>
        </message>
        <message>
            <source>Default ({policy})</source>
            <translation>既定({policy})</translation>
        </message>
        <message>
            <source>All calls</source>
            <translation>すべての呼び出し</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>取り消す</translation>
        </message>
        <message>
            <source>Revoke {tool} {calls}</source>
            <translation>{tool} {calls} を取り消す</translation>
        </message>
        <message>
            <source>Ask again before {tool} runs</source>
            <translation>{tool} の実行前にまた確認する</translation>
        </message>
        <message>
            <source>Allowed for this chat: </source>
            <translation>このチャットで許可: </translation>
        </message>
        <message>
            <source>No tool is allowed just for this chat.</source>
            <translation>このチャットだけで許可しているツールはありません。</translation>
        </message>
        <message>
            <source>This chat's commands may use the network.</source>
            <translation>このチャットのコマンドはネットワークを使えます。</translation>
        </message>
        <message>
            <source>Revoked: {tool} will ask again before it runs.</source>
            <translation>取り消しました。{tool} は実行前にまた確認します。</translation>
        </message>
        <message>
            <source>This chat will ask again.</source>
            <translation>このチャットではまた確認します。</translation>
        </message>
    </context>
    <context>
        <name>TopBar</name>
        <message>
            <source>Provider</source>
            <extracomment>Below these widths the bar drops the words on its buttons and the usage label, then the app's name (it is in the window's title).</extracomment>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>The provider of this chat</source>
            <translation>このチャットのプロバイダー</translation>
        </message>
        <message>
            <source>No provider</source>
            <translation>プロバイダーなし</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Chat settings: model, temperature, max tokens, reasoning</source>
            <translation>チャットの設定: モデル、温度、最大トークン数、推論</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>チャットの設定</translation>
        </message>
        <message>
            <source>Providers…</source>
            <translation>プロバイダー…</translation>
        </message>
        <message>
            <source>Add or edit providers</source>
            <translation>プロバイダーを追加・編集</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>プロバイダー</translation>
        </message>
        <message>
            <source>Tool activity</source>
            <translation>ツールの動作</translation>
        </message>
        <message>
            <source>Show or hide the tool activity panel (Ctrl+B)</source>
            <translation>ツールの動作パネルを表示/非表示 (Ctrl+B)</translation>
        </message>
        <message>
            <source>{model} on {provider}</source>
            <translation>{provider} の {model}</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>モデルを選択</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>モデルを選択…</translation>
        </message>
        <message>
            <source>Click to search and switch models</source>
            <translation>クリックしてモデルを検索・切り替え</translation>
        </message>
        <message>
            <source> (this chat sets its own)</source>
            <translation>(このチャット独自の設定あり)</translation>
        </message>
        <message>
            <source>no provider</source>
            <translation>プロバイダーなし</translation>
        </message>
        <message>
            <source>no model</source>
            <translation>モデルなし</translation>
        </message>
    </context>
    <context>
        <name>TrustFields</name>
        <message>
            <source>Run commands in a sandbox</source>
            <translation>コマンドをサンドボックスで実行する</translation>
        </message>
        <message>
            <source>Commands see the system read-only, may write only in the workspace and a private temporary folder, and never see this app's data (Linux: bubblewrap; macOS: sandbox-exec). Without a sandbox on this system they run as you.</source>
            <translation>コマンドからはシステムが読み取り専用に見え、書き込めるのはワークスペースと専用の一時フォルダーだけで、このアプリのデータは見えません（Linux: bubblewrap、macOS: sandbox-exec）。このシステムにサンドボックスがない場合は、あなたの権限で実行されます。</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>サンドボックス内のコマンドにネットワークを許可する</translation>
        </message>
        <message>
            <source>Off: a command cannot reach the internet or servers on this computer (downloads, package installs and git push fail).</source>
            <translation>オフ: コマンドはインターネットにもこのコンピューター上のサーバーにも接続できません（ダウンロード、パッケージのインストール、git push は失敗します）。</translation>
        </message>
        <message>
            <source>e.g. 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</source>
            <translation>例: 127.0.0.1, nas.local, .corp.example, 10.0.0.0/8</translation>
        </message>
        <message>
            <source>Local or private hosts fetch_url may read</source>
            <translation>fetch_url が読み取れるローカル/プライベートホスト</translation>
        </message>
        <message>
            <source>fetch_url refuses this computer, the local network and cloud metadata addresses, so a web page cannot make the assistant read them. Hosts, .domain suffixes, addresses or networks listed here are allowed.</source>
            <translation>fetch_url は、ウェブページがアシスタントに読ませることのないよう、このコンピューター、ローカルネットワーク、クラウドのメタデータアドレスへのアクセスを拒否します。ここに挙げたホスト、.domain 接尾辞、アドレス、ネットワークは許可されます。</translation>
        </message>
        <message>
            <source>e.g. JAVA_HOME, NODE_*</source>
            <translation>例: JAVA_HOME, NODE_*</translation>
        </message>
        <message>
            <source>Environment variables run_command passes on</source>
            <translation>run_command が渡す環境変数</translation>
        </message>
        <message>
            <source>Commands get a clean environment (PATH, HOME, language...). Name more variables here, or prefixes ending in *; a prefix never brings in keys, tokens or passwords.</source>
            <translation>コマンドには整理された環境変数だけが渡されます(PATH、HOME、言語など)。ほかの変数名、または * で終わる接頭辞をここに指定できます。接頭辞でキー、トークン、パスワードが渡ることはありません。</translation>
        </message>
        <message>
            <source>Hosts fetch_url may read:</source>
            <translation>fetch_url が読み取れるホスト:</translation>
        </message>
        <message>
            <source>Variables for commands:</source>
            <translation>コマンド用の変数:</translation>
        </message>
        <message>
            <source>Not a host, address or network: {entries}</source>
            <translation>ホスト、アドレス、ネットワークのいずれでもありません: {entries}</translation>
        </message>
        <message>
            <source>Not a variable name (letters, digits and _, or a prefix ending in *): {entries}</source>
            <translation>変数名ではありません(英字・数字・_、または * で終わる接頭辞): {entries}</translation>
        </message>
    </context>
    <context>
        <name>TurnStatus</name>
        <message>
            <source>Rate limited</source>
            <translation>レート制限中</translation>
        </message>
        <message>
            <source>Overloaded</source>
            <translation>過負荷</translation>
        </message>
        <message>
            <source>Service unavailable</source>
            <translation>サービス利用不可</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>タイムアウト</translation>
        </message>
        <message>
            <source>Server error ({reason})</source>
            <translation>サーバーエラー({reason})</translation>
        </message>
        <message>
            <source>Could not connect ({reason})</source>
            <translation>接続できませんでした({reason})</translation>
        </message>
        <message>
            <source>retry {number}</source>
            <translation>再試行 {number} 回目</translation>
        </message>
        <message>
            <source>retrying in {seconds} s</source>
            <translation>{seconds} 秒後に再試行</translation>
        </message>
        <message>
            <source>retrying now</source>
            <translation>再試行中</translation>
        </message>
        <message>
            <source>{reason} — {wait} ({count})</source>
            <translation>{reason} — {wait}({count})</translation>
        </message>
        <message>
            <source>Answer status</source>
            <translation>回答の状態</translation>
        </message>
        <message>
            <source>Thinking…  </source>
            <translation>考えています…  </translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>キャンセル</translation>
        </message>
        <message>
            <source>Stop this answer</source>
            <translation>この回答を停止</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>今回だけ許可</translation>
        </message>
        <message>
            <source>Run this call now; ask again next time</source>
            <translation>今回の呼び出しを実行し、次回はまた確認します</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>このチャットで許可</translation>
        </message>
        <message>
            <source>Do not ask again in this chat</source>
            <translation>このチャットでは今後確認しない</translation>
        </message>
        <message>
            <source>Always allow</source>
            <translation>常に許可</translation>
        </message>
        <message>
            <source>Never ask again, in any chat</source>
            <translation>どのチャットでも今後確認しない</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒否</translation>
        </message>
        <message>
            <source>Do not run it; the assistant is told</source>
            <translation>実行しません。アシスタントに伝えます</translation>
        </message>
        <message>
            <source>Allow network for this chat</source>
            <translation>このチャットでネットワークを許可</translation>
        </message>
        <message>
            <source>This chat's commands may use the network from now on</source>
            <translation>このチャットのコマンドは今後ネットワークを使えます</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>続行</translation>
        </message>
        <message>
            <source>Let the assistant use tools for more rounds</source>
            <translation>アシスタントにさらにツールを使わせる</translation>
        </message>
        <message>
            <source>Stop here</source>
            <translation>ここで止める</translation>
        </message>
        <message>
            <source>End the answer with what it has so far</source>
            <translation>ここまでの内容で回答を終える</translation>
        </message>
        <message>
            <source>Waiting for your approval: {tool}</source>
            <translation>承認待ち: {tool}</translation>
        </message>
        <message>
            <source>Waiting for your approval ({number} of {count}): {tool}</source>
            <translation>承認待ち（{count} 件中 {number} 件目）：{tool}</translation>
        </message>
        <message numerus="yes">
            <source>The assistant has used tools for %n round(s). Let it continue?</source>
            <translation>
                <numerusform>アシスタントは %n 回ツールを使いました。続けさせますか?</numerusform>
            </translation>
        </message>
        <message>
            <source>Waiting for another answer from this provider to finish…</source>
            <translation>このプロバイダーの別の回答が終わるのを待っています…</translation>
        </message>
        <message>
            <source>Also waiting ({number} of {count}): {tool}</source>
            <translation>こちらも承認待ち（{count} 件中 {number} 件目）：{tool}</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>考えています</translation>
        </message>
    </context>
    <context>
        <name>UndoBar</name>
        <message>
            <source>Undo</source>
            <translation>元に戻す</translation>
        </message>
        <message>
            <source>Bring the chat back from the trash</source>
            <translation>チャットをゴミ箱から戻す</translation>
        </message>
        <message>
            <source>Moved “{title}” to the trash</source>
            <translation>「{title}」をゴミ箱に移動しました</translation>
        </message>
        <message numerus="yes">
            <source>Moved %n chats to the trash</source>
            <translation>
                <numerusform>%n 件のチャットをゴミ箱に移動しました</numerusform>
            </translation>
        </message>
        <message>
            <source>Undo this turn's changes</source>
            <translation>このターンの変更を元に戻す</translation>
        </message>
        <message>
            <source>Put back the files the assistant wrote in its last turn in this chat</source>
            <translation>このチャットでアシスタントが直前のターンに書いたファイルを元に戻す</translation>
        </message>
        <message numerus="yes">
            <source>…and %n more</source>
            <translation>
                <numerusform>…ほか %n 件</numerusform>
            </translation>
        </message>
        <message>
            <source>Put back these files as they were before the assistant's last turn? Files it created are deleted.

{files}</source>
            <translation>これらのファイルをアシスタントの直前のターンより前の状態に戻しますか? アシスタントが作成したファイルは削除されます。

{files}</translation>
        </message>
        <message>
            <source>Nothing was undone: files {reason}</source>
            <translation>何も元に戻していません: ファイル {reason}</translation>
        </message>
        <message>
            <source>Nothing was undone: {reason}</source>
            <translation>何も元に戻していません: {reason}</translation>
        </message>
        <message numerus="yes">
            <source>Undone: %n file(s) put back</source>
            <translation>
                <numerusform>元に戻しました: %n 個のファイルを復元</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n deleted</source>
            <translation>
                <numerusform>%n 件削除</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UpdateDialog</name>
        <message>
            <source>Update available</source>
            <translation>アップデートがあります</translation>
        </message>
        <message>
            <source>Version {new} is available (you have {current}).</source>
            <translation>バージョン {new} が利用できます(現在は {current})。</translation>
        </message>
        <message>
            <source>No release notes.</source>
            <translation>リリースノートはありません。</translation>
        </message>
        <message>
            <source>Release notes</source>
            <translation>リリースノート</translation>
        </message>
        <message>
            <source>Download: {file}</source>
            <translation>ダウンロード: {file}</translation>
        </message>
        <message>
            <source>No installer for this system in this release: the release page lists what there is.</source>
            <translation>このリリースにはこのシステム用のインストーラーがありません。リリースページで提供内容を確認してください。</translation>
        </message>
        <message>
            <source>&amp;Download</source>
            <translation>ダウンロード(&amp;D)</translation>
        </message>
        <message>
            <source>Release &amp;page</source>
            <translation>リリースページ(&amp;P)</translation>
        </message>
    </context>
    <context>
        <name>UpdateNotice</name>
        <message>
            <source>Version {version} is available</source>
            <translation>バージョン {version} が利用できます</translation>
        </message>
        <message>
            <source>See what is new and download it</source>
            <translation>新機能を確認してダウンロード</translation>
        </message>
    </context>
    <context>
        <name>UsagePage</name>
        <message>
            <source>Period</source>
            <extracomment>One plain thread for the page's reads (not the event loop's default executor: under qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).</extracomment>
            <translation>期間</translation>
        </message>
        <message>
            <source>Last 7 days</source>
            <translation>過去 7 日間</translation>
        </message>
        <message>
            <source>Last 30 days</source>
            <translation>過去 30 日間</translation>
        </message>
        <message>
            <source>All time</source>
            <translation>全期間</translation>
        </message>
        <message>
            <source>Usage per model</source>
            <translation>モデル別の使用量</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>モデル</translation>
        </message>
        <message>
            <source>Answers</source>
            <translation>回答数</translation>
        </message>
        <message>
            <source>Tokens in</source>
            <translation>入力トークン</translation>
        </message>
        <message>
            <source>Tokens out</source>
            <translation>出力トークン</translation>
        </message>
        <message>
            <source>Cost</source>
            <translation>費用</translation>
        </message>
        <message>
            <source>Median tok/s</source>
            <translation>中央値 トークン/秒</translation>
        </message>
        <message>
            <source>Every stored answer counts, in every chat and version (the trash too). Costs are what the provider reported, else estimated from the model prices (Settings → Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are tokens per second while the answer streamed.</source>
            <translation>保存されたすべての回答を、すべてのチャットとバージョン(ゴミ箱も含む)について集計します。費用はプロバイダーが報告した値、なければモデル料金(設定 → モデル料金)からの推定値です。「—」は料金不明、「≥」は一部のトークンに料金がないことを示します。速度は回答受信中の 1 秒あたりのトークン数です。</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>読み込んでいます…</translation>
        </message>
        <message>
            <source>Total</source>
            <translation>合計</translation>
        </message>
    </context>
    <context>
        <name>UsageText</name>
        <message>
            <source>{input} in · {output} out</source>
            <extracomment>Where a view gets the user's model prices from (they change in Settings).</extracomment>
            <translation>入力 {input} · 出力 {output}</translation>
        </message>
        <message>
            <source> ({count} reasoning)</source>
            <translation>(推論 {count})</translation>
        </message>
        <message>
            <source> · {seconds} s</source>
            <translation> · {seconds} 秒</translation>
        </message>
        <message>
            <source> · {rate} tok/s</source>
            <translation> · {rate} トークン/秒</translation>
        </message>
        <message>
            <source>Tokens for this answer: prompt in, generated out</source>
            <translation>この回答のトークン数: 入力はプロンプト、出力は生成分</translation>
        </message>
        <message>
            <source>≈: estimated from the text (the provider sent no counts: the answer was stopped or failed)</source>
            <translation>≈: テキストからの推定値(回答が停止または失敗したため、プロバイダーから数値が届いていません)</translation>
        </message>
        <message>
            <source>First token after {seconds} s</source>
            <translation>最初のトークンまで {seconds} 秒</translation>
        </message>
        <message>
            <source>{rate} tokens per second</source>
            <translation>毎秒 {rate} トークン</translation>
        </message>
        <message>
            <source>Cost about {cost} (reported by the provider, else from the model prices)</source>
            <translation>費用 約 {cost}(プロバイダーの報告値、なければモデル料金から)</translation>
        </message>
        <message>
            <source>No price known for this model (Settings → Model prices)</source>
            <translation>このモデルの料金は不明です(設定 → モデル料金)</translation>
        </message>
        <message>
            <source>tokens {input} in · {output} out</source>
            <translation>トークン 入力 {input} · 出力 {output}</translation>
        </message>
        <message>
            <source> ({count} thinking)</source>
            <translation>(思考 {count})</translation>
        </message>
        <message>
            <source>This chat: {input} input tokens ({cached} cached), {output} output tokens ({thinking} thinking)</source>
            <translation>このチャット: 入力 {input} トークン(キャッシュ {cached})、出力 {output} トークン(思考 {thinking})</translation>
        </message>
        <message>
            <source>, about {cost}</source>
            <translation>、約 {cost}</translation>
        </message>
        <message>
            <source>, no price known for this model</source>
            <translation>、このモデルの料金は不明です</translation>
        </message>
    </context>
    <context>
        <name>VirtualColumn</name>
        <message>
            <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
            <translation>何でも聞いてください。Enter で送信、Shift+Enter で改行します。</translation>
        </message>
        <message>
            <source>↓  Jump to latest</source>
            <translation>↓  最新へ移動</translation>
        </message>
    </context>
    <context>
        <name>Voice</name>
        <message>
            <source>No microphone could be opened. Connect one, or allow this app to use the microphone in the system's privacy settings.</source>
            <translation>マイクを開けませんでした。マイクを接続するか、システムのプライバシー設定でこのアプリにマイクの使用を許可してください。</translation>
        </message>
        <message>
            <source>No sound output could be opened, so nothing can be read aloud here.</source>
            <translation>音声出力を開けなかったため、ここでは読み上げできません。</translation>
        </message>
        <message>
            <source>This system has no speech engine. Install espeak-ng, or set a speech model in Settings.</source>
            <translation>このシステムには音声エンジンがありません。espeak-ng をインストールするか、設定で音声モデルを指定してください。</translation>
        </message>
        <message>
            <source>Set a transcription model in Settings to dictate.</source>
            <translation>音声入力するには、設定で文字起こしモデルを指定してください。</translation>
        </message>
        <message>
            <source>This answer has no text to read aloud.</source>
            <translation>この回答には読み上げるテキストがありません。</translation>
        </message>
        <message>
            <source>The speech audio could not be played.</source>
            <translation>音声を再生できませんでした。</translation>
        </message>
        <message>
            <source>Nothing was recorded.</source>
            <translation>何も録音されませんでした。</translation>
        </message>
    </context>
    <context>
        <name>VoiceSettings</name>
        <message>
            <source>Provider that reads aloud</source>
            <translation>読み上げるプロバイダー</translation>
        </message>
        <message>
            <source>Speech model</source>
            <translation>音声モデル</translation>
        </message>
        <message>
            <source>Empty: the system's voice. e.g. gpt-4o-mini-tts</source>
            <translation>空欄：システムの音声。例：gpt-4o-mini-tts</translation>
        </message>
        <message>
            <source>Voice</source>
            <translation>声</translation>
        </message>
        <message>
            <source>Provider that writes dictation</source>
            <translation>音声入力を文字にするプロバイダー</translation>
        </message>
        <message>
            <source>Transcription model</source>
            <translation>文字起こしモデル</translation>
        </message>
        <message>
            <source>Empty: no dictation. e.g. whisper-1</source>
            <translation>空欄：音声入力なし。例：whisper-1</translation>
        </message>
        <message>
            <source>Read aloud on</source>
            <translation>読み上げに使う</translation>
        </message>
        <message>
            <source>Dictation on</source>
            <translation>音声入力に使う</translation>
        </message>
        <message>
            <source>The chat's provider</source>
            <translation>チャットのプロバイダー</translation>
        </message>
    </context>
    <context>
        <name>WebSearchSettings</name>
        <message>
            <source>Search service</source>
            <translation>検索サービス</translation>
        </message>
        <message>
            <source>None</source>
            <translation>なし</translation>
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
            <translation>検索サービスのアドレス</translation>
        </message>
        <message>
            <source>Search service API key</source>
            <translation>検索サービスの API キー</translation>
        </message>
        <message>
            <source>Chats with "Search the web" on use the provider's own search where it has one (OpenAI Responses, Anthropic, Gemini, OpenRouter). Other providers get a web_search tool on the service chosen here. SearXNG must allow the json format (search: formats: [html, json] in its settings.yml).</source>
            <translation>「ウェブを検索」をオンにしたチャットは、プロバイダー独自の検索があればそれを使います(OpenAI Responses、Anthropic、Gemini、OpenRouter)。ほかのプロバイダーには、ここで選んだサービスを使う web_search ツールを渡します。SearXNG では json 形式を許可しておく必要があります(settings.yml の search: formats: [html, json])。</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>サービス</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>アドレス</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API キー</translation>
        </message>
        <message>
            <source>Research</source>
            <translation>リサーチ</translation>
        </message>
        <message>
            <source>Research: search rounds at most</source>
            <translation>リサーチ：検索ラウンドの上限</translation>
        </message>
        <message>
            <source> min</source>
            <translation> 分</translation>
        </message>
        <message>
            <source>Research: minutes at most</source>
            <translation>リサーチ：時間（分）の上限</translation>
        </message>
        <message>
            <source>No ceiling</source>
            <translation>上限なし</translation>
        </message>
        <message>
            <source>Research: cost ceiling in US dollars</source>
            <translation>リサーチ：費用の上限（米ドル）</translation>
        </message>
        <message>
            <source>Search rounds</source>
            <translation>検索ラウンド</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>時間の上限</translation>
        </message>
        <message>
            <source>Cost ceiling</source>
            <translation>費用の上限</translation>
        </message>
        <message>
            <source>A research run stops at whichever limit comes first and says so in its report. The cost counts only models with a known price (Model prices).</source>
            <translation>リサーチは最初に達した上限で停止し、レポートでそのことを伝えます。費用は価格がわかっているモデルだけを数えます（モデルの価格）。</translation>
        </message>
        <message>
            <source>https://searx.example.org</source>
            <translation>https://searx.example.org</translation>
        </message>
        <message>
            <source>Default: the service's API</source>
            <translation>既定: サービスの API</translation>
        </message>
        <message>
            <source>SearXNG needs the address of an instance.</source>
            <translation>SearXNG にはインスタンスのアドレスが必要です。</translation>
        </message>
    </context>
    <context>
        <name>WelcomePage</name>
        <message>
            <source>Connect a model provider</source>
            <translation>モデルのプロバイダーに接続</translation>
        </message>
        <message>
            <source>Assista talks to OpenAI-compatible services: a cloud provider with your API key, or a local server such as LM Studio. Pick one to start:</source>
            <translation>Assista は OpenAI 互換のサービスとやり取りします。API キーを使うクラウドのプロバイダー、または LM Studio などのローカルサーバーです。始めるには 1 つ選んでください:</translation>
        </message>
        <message>
            <source>Add {name}</source>
            <translation>{name} を追加</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Add a provider</source>
            <translation>プロバイダーを追加</translation>
        </message>
        <message>
            <source>OpenAI, Anthropic, Gemini, OpenRouter, Ollama, LM Studio or any OpenAI-compatible server. Keys stay in your system keyring.</source>
            <translation>OpenAI、Anthropic、Gemini、OpenRouter、Ollama、LM Studio、または OpenAI 互換の任意のサーバー。キーはシステムのキーリングに保存されます。</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>プロバイダーを追加…</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>モデルを選ぶ</translation>
        </message>
        <message>
            <source>Type in the model picker to search every model your providers offer; star the ones you use most.</source>
            <translation>モデル選択欄に入力すると、プロバイダーが提供するすべてのモデルを検索できます。よく使うものには星を付けましょう。</translation>
        </message>
        <message>
            <source>Choose a model…</source>
            <translation>モデルを選択…</translation>
        </message>
        <message>
            <source>Ask</source>
            <translation>確認</translation>
        </message>
        <message>
            <source>Write below and press Enter. Choose a workspace folder and the assistant can read and edit its files — it asks before changing anything.</source>
            <translation>下に入力して Enter を押します。作業フォルダーを選ぶと、アシスタントがそのファイルを読み書きできます。変更の前には必ず確認します。</translation>
        </message>
        <message>
            <source>Write a message</source>
            <translation>メッセージを書く</translation>
        </message>
        <message>
            <source>&lt;h2&gt;Welcome to Assista&lt;/h2&gt;</source>
            <translation>&lt;h2&gt;Assista へようこそ&lt;/h2&gt;</translation>
        </message>
        <message>
            <source>Three steps to your first answer:</source>
            <translation>最初の回答までの 3 ステップ:</translation>
        </message>
        <message>
            <source>Or start from a &lt;a href="starters"&gt;ready-made assistant&lt;/a&gt;: translator, programmer, editor…</source>
            <translation>または&lt;a href="starters"&gt;既製のアシスタント&lt;/a&gt;から始めましょう: 翻訳、プログラマー、編集者…</translation>
        </message>
        <message>
            <source>Starter assistants</source>
            <translation>スターターアシスタント</translation>
        </message>
        <message>
            <source>Step {number} done</source>
            <translation>ステップ {number} 完了</translation>
        </message>
        <message>
            <source>Step {number}</source>
            <translation>ステップ {number}</translation>
        </message>
    </context>
    <context>
        <name>_PathRow</name>
        <message>
            <source>Browse…</source>
            <translation>参照…</translation>
        </message>
    </context>
</TS>

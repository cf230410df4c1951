"""Mail as Outlook and Gmail send it: HTML with style sheets and conditional comments, quoted
replies below the turn (Outlook's header block and "-----Original Message-----", Gmail's quote)."""

# Outlook for Windows (Word as the editor): a style sheet, Office XML, and the quoted notice.
OUTLOOK_HTML = """<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" xmlns="http://www.w3.org/TR/REC-html40">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=us-ascii">
<meta name="Generator" content="Microsoft Word 15 (filtered medium)">
<style><!--
/* Font Definitions */
@font-face
	{font-family:"Cambria Math";
	panose-1:2 4 5 3 5 4 6 3 2 4;}
@font-face
	{font-family:Calibri;
	panose-1:2 15 5 2 2 2 4 3 2 4;}
/* Style Definitions */
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{margin:0cm;
	font-size:11.0pt;
	font-family:"Calibri",sans-serif;}
span.EmailStyle17
	{mso-style-type:personal-compose;
	font-family:"Calibri",sans-serif;
	color:windowtext;}
.MsoChpDefault
	{mso-style-type:export-only;
	font-family:"Calibri",sans-serif;}
@page WordSection1
	{size:612.0pt 792.0pt;
	margin:72.0pt 72.0pt 72.0pt 72.0pt;}
div.WordSection1
	{page:WordSection1;}
--></style><!--[if gte mso 9]><xml>
<o:shapedefaults v:ext="edit" spidmax="1026" />
</xml><![endif]--><!--[if gte mso 9]><xml>
<o:shapelayout v:ext="edit">
<o:idmap v:ext="edit" data="1" />
</o:shapelayout></xml><![endif]-->
</head>
<body lang="EN-GB" link="#0563C1" vlink="#954F72" style="word-wrap:break-word">
<div class="WordSection1">
<p class="MsoNormal">Hi GM,<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">action: Scout the pass<o:p></o:p></p>
<p class="MsoNormal">&nbsp; slot: private<o:p></o:p></p>
<p class="MsoNormal">&nbsp; description: Riders at dawn.<o:p></o:p></p>
<p class="MsoNormal">ready<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">Thanks,<o:p></o:p></p>
<p class="MsoNormal">Gandalf<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<div>
<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">
<p class="MsoNormal"><b><span lang="EN-US">From:</span></b><span lang="EN-US"> Emissary &lt;noreply@emissary.local&gt;
<br>
<b>Sent:</b> Monday, November 30, 2026 10:00 AM<br>
<b>To:</b> gandalf@example.org<br>
<b>Subject:</b> Planning is open<o:p></o:p></span></p>
</div>
</div>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">Planning opens now. Send your actions:<o:p></o:p></p>
<p class="MsoNormal">action: Example from the notice<o:p></o:p></p>
</div>
</body>
</html>
"""
# Gmail: the turn in divs, the quoted notice in a gmail_quote div.
GMAIL_HTML = """<div dir="ltr"><div>action: Scout the pass</div><div>&nbsp; slot: private</div><div>ready</div><div><br></div><div>Cheers,</div><div>Gandalf</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 30 Nov 2026 at 10:00, Emissary &lt;<a href="mailto:noreply@emissary.local">noreply@emissary.local</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Planning opens now.<br>action: Example from the notice<br></div>
</blockquote></div>
"""

# The plain parts that travel beside them (multipart/alternative).
OUTLOOK_TEXT = """Hi GM,

action: Scout the pass
  slot: private
  description: Riders at dawn.
ready

Thanks,
Gandalf

-----Original Message-----
From: Emissary <noreply@emissary.local>
Sent: Monday, November 30, 2026 10:00 AM
To: gandalf@example.org
Subject: Planning is open

Planning opens now. Send your actions:
action: Example from the notice
"""

OUTLOOK_WEB_TEXT = """action: Scout the pass
  slot: private
ready

________________________________
From: Emissary <noreply@emissary.local>
Sent: Monday, November 30, 2026 10:00
To: gandalf@example.org
Subject: Planning is open

action: Example from the notice
"""

GMAIL_TEXT = """action: Scout the pass
  slot: private
ready

On Mon, 30 Nov 2026 at 10:00, Emissary <noreply@emissary.local>
wrote:

> Planning opens now.
> action: Example from the notice
"""

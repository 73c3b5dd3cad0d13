import os
from pathlib import Path

from dotenv import load_dotenv
from openai import OpenAI

load_dotenv()
client = OpenAI(base_url=os.environ.get("BASE_URL"))

reply = client.chat.completions.create(
    model="qwen2.5:32b-instruct-fp16",
    messages=[{"role": "user", "content": "Build the letter A with drop_block calls."}],
)
Path("out").mkdir(exist_ok=True)
Path("out/A.txt").write_text(reply.choices[0].message.content)
